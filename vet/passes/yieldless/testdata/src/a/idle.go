package a

import (
	"errors"
	"runtime"
	"time"
)

// Job is a task that runs to completion without blocking.
type Job struct{ n int }

// JobQueue is polled with a non-blocking TryPop.
type JobQueue struct{ jobs []*Job }

func (q *JobQueue) TryPop() (*Job, bool) {
	if len(q.jobs) == 0 {
		return nil, false
	}
	j := q.jobs[0]
	q.jobs = q.jobs[1:]
	return j, true
}

func (q *JobQueue) Next() *Job {
	j, _ := q.TryPop()
	return j
}

var errEmpty = errors.New("empty")

func (q *JobQueue) Take() (*Job, error) {
	if j, ok := q.TryPop(); ok {
		return j, nil
	}
	return nil, errEmpty
}

func (q *JobQueue) Empty() bool { return len(q.jobs) == 0 }

func (q *JobQueue) Len() int { return len(q.jobs) }

var results chan int

func exec(j *Job) { j.n++ }

// idleGosched yields only when it finds no work: an iteration that runs
// a job is not idle, and the idle one yields.
func idleGosched(q *JobQueue) { // want idleGosched:"mayBlock"
	for {
		if job, ok := q.TryPop(); ok {
			exec(job)
			continue
		}
		runtime.Gosched()
	}
}

// idleElse yields in the else branch.
func idleElse(q *JobQueue) { // want idleElse:"mayBlock"
	for {
		if job, ok := q.TryPop(); ok {
			exec(job)
		} else {
			runtime.Gosched()
		}
	}
}

// idleNot tests the failure first.
func idleNot(q *JobQueue) { // want idleNot:"mayBlock"
	for {
		job, ok := q.TryPop()
		if !ok {
			time.Sleep(time.Millisecond)
			continue
		}
		exec(job)
	}
}

// idleSteal pops, then steals, then yields.
func idleSteal(q, victim *JobQueue) { // want idleSteal:"mayBlock"
	for {
		if job, ok := q.TryPop(); ok {
			exec(job)
			continue
		}
		if job, ok := victim.TryPop(); ok {
			exec(job)
			continue
		}
		runtime.Gosched()
	}
}

// idleNil tests a pointer result against nil.
func idleNil(q *JobQueue) { // want idleNil:"mayBlock"
	for {
		if job := q.Next(); job != nil {
			exec(job)
			continue
		}
		runtime.Gosched()
	}
}

// idleErr tests an error result: nil is success.
func idleErr(q *JobQueue) { // want idleErr:"mayBlock"
	for {
		job, err := q.Take()
		if err != nil {
			runtime.Gosched()
			continue
		}
		exec(job)
	}
}

// idleSwitch yields in the failure case of a switch.
func idleSwitch(q *JobQueue) { // want idleSwitch:"mayBlock"
	for {
		job, ok := q.TryPop()
		switch {
		case ok:
			exec(job)
		default:
			runtime.Gosched()
		}
	}
}

// idleEmpty asks whether the queue is empty: the analyzer cannot tell
// which answer means idle, and the side that yields is taken for it.
func idleEmpty(q *JobQueue) { // want idleEmpty:"mayBlock"
	for {
		if q.Empty() {
			runtime.Gosched()
			continue
		}
		exec(q.Next())
	}
}

// busyFound yields only after finding work: the idle iteration, where
// TryPop fails, spins.
func busyFound(q *JobQueue) { // want busyFound:"mayBlock"
	for { // want `polling loop`
		if job, ok := q.TryPop(); ok {
			exec(job)
			runtime.Gosched()
		}
	}
}

// busySend blocks only to hand a result over.
func busySend(q *JobQueue) { // want busySend:"mayBlock"
	for { // want `polling loop`
		if job, ok := q.TryPop(); ok {
			exec(job)
			results <- job.n
		}
	}
}

// busyNoYield never yields on any path.
func busyNoYield(q, victim *JobQueue) {
	for { // want `polling loop`
		if job, ok := q.TryPop(); ok {
			exec(job)
			continue
		}
		if job, ok := victim.TryPop(); ok {
			exec(job)
		}
	}
}

// busyLen tests a length: neither side yields.
func busyLen(q *JobQueue) {
	for { // want `polling loop`
		if q.Len() > 0 {
			exec(q.Next())
		}
	}
}

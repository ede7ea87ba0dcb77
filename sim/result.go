package sim

import "time"

// Result is what happened in one run.
type Result struct {
	Policy Policy
	// Completed and Busy are per worker: jobs completed and time spent
	// running them (up to the horizon for a preempted job).
	Completed []int
	Busy      []time.Duration
	// Steals counts successful steals, Moved the jobs they moved, and
	// FailedSteals the requests that found their victim empty on arrival
	// (possible only with a steal latency). Requests still in flight when
	// the last job completes are not counted: the run ends there.
	Steals, Moved, FailedSteals int
	// TotalWork and LongestJob cover every job that existed in the run,
	// spawned ones included; they define the lower bound. TotalWork
	// saturates at the largest time.Duration (about 292 years); the lower
	// bound is computed from the exact sum.
	TotalWork, LongestJob time.Duration
	// Finished reports that every job was done; steal requests still in
	// flight then are dropped, uncounted. Makespan is when the last job
	// completed or, when the run was stopped before that (Finished false),
	// the instant it stopped: the horizon, the end of virtual time, or the
	// time of its last event when it ran out of events. Only a finished
	// run's Makespan is a makespan.
	Makespan time.Duration
	Finished bool
	// Events counts the events processed: jobs finishing and steal
	// requests arriving. OutOfEvents reports that the run stopped because
	// it reached Options.MaxEvents with events still due.
	Events      int
	OutOfEvents bool
	// Remaining holds each worker's deque, front to back, at the end: empty
	// when Finished. Preempted jobs are at the front with their remaining
	// cost; jobs left in the central queue are dealt round robin.
	Remaining [][]Task
	// Samples is the time series that Options.Sample asked for, SampleEvery
	// apart from time 0; nil when sampling was off.
	Samples     []Sample
	SampleEvery time.Duration

	work work // the exact TotalWork; zero in a Result built by hand
}

// Workers reports the number of workers.
func (r Result) Workers() int { return len(r.Completed) }

// Jobs reports the number of jobs completed.
func (r Result) Jobs() int {
	n := 0
	for _, c := range r.Completed {
		n += c
	}
	return n
}

// Left reports the jobs not completed: those in Remaining.
func (r Result) Left() int {
	n := 0
	for _, q := range r.Remaining {
		n += len(q)
	}
	return n
}

// LowerBound is what no schedule's makespan can beat: max(total work / W,
// longest job), rounded up to the nanosecond. It saturates at the largest
// time.Duration, about 292 years, which no run reaches; LowerBoundNanos
// goes beyond.
func (r Result) LowerBound() time.Duration {
	return max(r.exactWork().ceilDiv(uint64(max(1, r.Workers()))), r.LongestJob)
}

// LowerBoundNanos is LowerBound in nanoseconds, as a float64 that does not
// saturate: many long jobs on few workers can have a bound beyond what a
// time.Duration holds.
func (r Result) LowerBoundNanos() float64 {
	if lb := r.LowerBound(); lb < endOfTime {
		return float64(lb)
	}
	return max(r.exactWork().nanos()/float64(max(1, r.Workers())), float64(r.LongestJob))
}

// exactWork is the total work without saturation.
func (r Result) exactWork() work {
	if r.work == (work{}) {
		return work{lo: uint64(max(r.TotalWork, 0))}
	}
	return r.work
}

// Ratio is Makespan / LowerBound: 1 is a perfect schedule. It compares
// schedules only when Finished; for a run that stopped early it is the
// time run over the bound. A run with no work to do (bound and makespan
// 0) is perfect: 1; one whose bound is 0 but took time (jobs of no cost
// behind steal latencies) has no finite ratio: 0.
func (r Result) Ratio() float64 {
	lb := r.LowerBoundNanos()
	switch {
	case lb > 0:
		return float64(r.Makespan) / lb
	case r.Makespan <= 0:
		return 1
	}
	return 0
}

// Utilisation is the fraction of worker time spent running jobs over the
// makespan: total busy / (W * Makespan). The total is summed in float64,
// since it can exceed what a time.Duration holds.
func (r Result) Utilisation() float64 {
	if r.Makespan <= 0 || r.Workers() == 0 {
		return 0
	}
	var busy float64
	for _, b := range r.Busy {
		busy += float64(b)
	}
	return busy / (float64(r.Makespan) * float64(r.Workers()))
}

// Idle returns each worker's idle time within the makespan.
func (r Result) Idle() []time.Duration {
	out := make([]time.Duration, len(r.Busy))
	for i, b := range r.Busy {
		out[i] = r.Makespan - b
	}
	return out
}

// QueueSizes returns each worker's deque length at the end.
func (r Result) QueueSizes() []int {
	out := make([]int, len(r.Remaining))
	for i, q := range r.Remaining {
		out[i] = len(q)
	}
	return out
}

// result closes the run: it preempts jobs still running at the horizon and
// collects what is left in the deques.
func (e *engine) result() Result {
	r := &e.res
	r.TotalWork = r.work.duration()
	r.Finished = r.Jobs() == len(e.tasks) // steal requests may be in flight
	if !r.Finished {
		r.Makespan = time.Duration(e.stop)
		e.preempt(e.stop)
	}
	r.Remaining = make([][]Task, len(e.deques))
	for w := range e.deques {
		d := &e.deques[w]
		r.Remaining[w] = make([]Task, d.Len())
		for k := range d.Len() {
			r.Remaining[w][k] = e.tasks[d.At(k)]
		}
	}
	for k := 0; e.central.Len() > 0; k++ {
		i, _ := e.central.PopFront()
		w := k % len(r.Remaining)
		r.Remaining[w] = append(r.Remaining[w], e.tasks[i])
	}
	return *r
}

// preempt puts what is left of each running job on the front of its deque.
func (e *engine) preempt(horizon int64) {
	for w, i := range e.running {
		if i < 0 {
			continue
		}
		done := max(0, horizon-e.started[w])
		e.res.Busy[w] += time.Duration(done)
		e.tasks[i].Cost -= time.Duration(done)
		e.deques[w].PushFront(i)
	}
}

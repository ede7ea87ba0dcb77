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
	// (possible only with a steal latency).
	Steals, Moved, FailedSteals int
	// TotalWork and LongestJob cover every job that existed in the run,
	// spawned ones included; they define the lower bound.
	TotalWork, LongestJob time.Duration
	// Makespan is when the last job completed, or the horizon when the run
	// was stopped before every job was done (Finished false).
	Makespan time.Duration
	Finished bool
	// Remaining holds each worker's deque, front to back, at the end: empty
	// when Finished. Preempted jobs are at the front with their remaining
	// cost; jobs left in the central queue are dealt round robin.
	Remaining [][]Task
	// Samples is the time series that Options.Sample asked for, SampleEvery
	// apart from time 0; nil when sampling was off.
	Samples     []Sample
	SampleEvery time.Duration
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

// LowerBound is no schedule's makespan can beat: max(total work / W,
// longest job).
func (r Result) LowerBound() time.Duration {
	w := time.Duration(max(1, r.Workers()))
	return max((r.TotalWork+w-1)/w, r.LongestJob)
}

// Ratio is Makespan / LowerBound: 1 is a perfect schedule.
func (r Result) Ratio() float64 {
	if lb := r.LowerBound(); lb > 0 {
		return float64(r.Makespan) / float64(lb)
	}
	return 0
}

// Utilisation is the fraction of worker time spent running jobs over the
// makespan: total busy / (W * Makespan).
func (r Result) Utilisation() float64 {
	if r.Makespan <= 0 || r.Workers() == 0 {
		return 0
	}
	var busy time.Duration
	for _, b := range r.Busy {
		busy += b
	}
	return float64(busy) / (float64(r.Makespan) * float64(r.Workers()))
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
	r.Finished = len(e.pending) == 0
	if !r.Finished {
		r.Makespan = e.opts.Horizon
		e.preempt(int64(e.opts.Horizon))
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

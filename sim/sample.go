package sim

import "time"

// Sampling asks a run to record its state as a time series in
// Result.Samples, for plotting. It is off (and costs nothing) when Every is
// zero.
type Sampling struct {
	// Every is the initial interval of virtual time between samples; the
	// first sample is taken at time 0.
	Every time.Duration
	// Max caps the number of samples; 0 means DefaultMaxSamples, and
	// other values are rounded down to an even number, at least 2. When a
	// run would take more, the interval doubles and every other sample is
	// dropped, so a run of any length ends with at most Max samples (and
	// more than Max/2 if it ever needed halving) evenly spaced
	// Result.SampleEvery apart, from time 0 to the first multiple of it at
	// or after the end of the run (for a run stopped unfinished, the last
	// one at or before it stopped). Each sample holds one int32 per worker,
	// so the series takes O(Max × workers) memory.
	Max int
}

// DefaultMaxSamples is the cap on samples when Sampling.Max is 0.
const DefaultMaxSamples = 2000

// Sample is the state of a run at one instant of virtual time, after every
// event at or before that instant. The counts always satisfy
//
//	Jobs = Done + Running + Fetching + Central + sum(Queues)
type Sample struct {
	// At is the instant, a multiple of Result.SampleEvery.
	At time.Duration
	// Queues is each worker's deque length, not counting the job it runs.
	Queues []int32
	// Central is the length of the central queue (Central policy only).
	Central int
	// Running counts the workers running a job, Fetching those waiting
	// for a job fetched from the central queue.
	Running, Fetching int
	// Done counts the jobs completed, Jobs those that exist so far: the
	// initial ones and the ones spawned up to At.
	Done, Jobs int
	// BusyTime is the worker time spent running jobs from time 0 to At,
	// summed over the workers, in nanoseconds; see
	// Result.SampleUtilisation. It is a float64 because the time of many
	// workers can exceed what a time.Duration holds (about 292 years).
	BusyTime float64
}

// Queued reports the jobs waiting in deques and the central queue.
func (s Sample) Queued() int {
	n := s.Central
	for _, q := range s.Queues {
		n += int(q)
	}
	return n
}

// SampleUtilisation is the fraction of worker time spent running jobs
// between sample i-1 and sample i: the difference of their BusyTime over
// workers × SampleEvery. For sample 0, which has no predecessor, it is the
// fraction of workers running a job at time 0.
func (r Result) SampleUtilisation(i int) float64 {
	s, w := r.Samples[i], r.Workers()
	if w == 0 {
		return 0
	}
	if i == 0 {
		return float64(s.Running) / float64(w)
	}
	prev := r.Samples[i-1]
	span := float64(s.At-prev.At) * float64(w)
	if span <= 0 {
		return 0
	}
	return (s.BusyTime - prev.BusyTime) / span
}

// noSample is sampleAt when sampling is off: no event comes after it, so
// the run loop's one comparison never fires.
const noSample = int64(endOfTime)

// startSampling sets the engine up to record samples, or not.
func (e *engine) startSampling(s Sampling) {
	e.sampleAt = noSample
	if s.Every <= 0 {
		return
	}
	e.sampleEvery = int64(s.Every)
	e.sampleMax = s.Max
	if e.sampleMax == 0 {
		e.sampleMax = DefaultMaxSamples
	}
	e.sampleMax = max(e.sampleMax&^1, 2) // even, so halving keeps the grid
	e.sampleAt = 0
	e.res.Samples = make([]Sample, 0, min(e.sampleMax, 64))
}

// sampleBefore records the samples due before an event at time at.
func (e *engine) sampleBefore(at int64) {
	for e.sampleAt < at {
		e.sample()
	}
}

// sampleThrough records the samples due up to and including time end.
func (e *engine) sampleThrough(end int64) {
	for e.sampleAt <= end {
		e.sample()
	}
}

// sampleFinal records, after the last event at time end, the samples up to
// the first one at or after end, which shows the final state.
func (e *engine) sampleFinal(end int64) {
	if e.sampleAt == noSample {
		return
	}
	e.sampleBefore(end)
	if e.sampleAt != noSample {
		e.sample()
	}
}

// endSampling closes the series of a run whose jobs are all done: it
// records the samples up to the first one at or after the makespan, which
// shows the final state, and takes no more.
func (e *engine) endSampling() {
	e.sampleFinal(int64(e.res.Makespan))
	e.sampleAt = noSample
}

// sample records the state at e.sampleAt, which is no earlier than the
// last event processed and no later than the next one, and moves
// e.sampleAt on. A full series is halved first: keeping the even samples
// leaves those at multiples of twice the interval, which the due sample
// is one of because Max is even.
func (e *engine) sample() {
	if len(e.res.Samples) == e.sampleMax {
		e.halve()
	}
	t := e.sampleAt
	s := Sample{At: time.Duration(t), Central: e.central.Len(), Jobs: len(e.tasks)}
	if n := len(e.spare); n > 0 {
		s.Queues, e.spare = e.spare[n-1], e.spare[:n-1]
	} else {
		s.Queues = make([]int32, len(e.deques))
	}
	for w := range e.deques {
		s.Queues[w] = int32(e.deques[w].Len())
		s.Done += e.res.Completed[w]
		s.BusyTime += float64(e.res.Busy[w])
		if e.running[w] < 0 {
			continue
		}
		if e.started[w] <= t {
			s.Running++
			s.BusyTime += float64(t - e.started[w])
		} else {
			s.Fetching++
		}
	}
	e.res.Samples = append(e.res.Samples, s)
	e.res.SampleEvery = time.Duration(e.sampleEvery)
	e.sampleAt = after(t, e.sampleEvery)
}

// halve drops the odd samples and doubles the interval.
func (e *engine) halve() {
	kept := e.res.Samples[:0]
	for i, s := range e.res.Samples {
		if i%2 == 0 {
			kept = append(kept, s)
		} else {
			e.spare = append(e.spare, s.Queues)
		}
	}
	clear(e.res.Samples[len(kept):])
	e.res.Samples = kept
	e.sampleEvery = after(e.sampleEvery, e.sampleEvery)
}

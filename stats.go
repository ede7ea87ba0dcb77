package steal

import "sync/atomic"

// counter is a statistics counter. Its owner bumps it with a plain load and
// store (no locked instruction), so stats cost almost nothing on the hot
// path; other goroutines read it atomically.
type counter struct{ v atomic.Uint64 }

func (c *counter) inc()               { c.v.Store(c.v.Load() + 1) } // owner only
func (c *counter) add(n uint64)       { c.v.Store(c.v.Load() + n) } // owner only
func (c *counter) incAtomic()         { c.v.Add(1) }                // any goroutine
func (c *counter) addAtomic(n uint64) { c.v.Add(n) }                // any goroutine
func (c *counter) load() uint64       { return c.v.Load() }

type workerStats struct {
	ran, spawned, stolenIn, stolenOut, stealAttempts, steals counter
	globalGrabs, overflows, parks, wakeups, panics           counter
}

// WorkerStats are one worker's counters since the pool started.
type WorkerStats struct {
	Ran           uint64 // tasks run
	Spawned       uint64 // tasks spawned from tasks running here
	StolenIn      uint64 // tasks this worker stole from others
	StolenOut     uint64 // tasks others stole from this worker
	StealAttempts uint64 // victims looked at while stealing
	Steals        uint64 // successful steals (each moves StolenIn/Steals tasks on average)
	GlobalGrabs   uint64 // times it took work from the inject queue
	Overflows     uint64 // times its ring was full and spilled half to the inject queue
	Parks         uint64 // times it went to sleep
	Wakeups       uint64 // times another goroutine woke it
	Panics        uint64 // tasks that panicked here
	RingLen       int    // tasks in its ring now
	Runnext       bool   // whether its runnext slot holds a task now
}

// Stats is a snapshot of the pool's counters: per worker and summed.
type Stats struct {
	Workers  []WorkerStats
	Total    WorkerStats // sum over workers (RingLen summed, Runnext: any)
	Inject   int         // tasks in the inject queue now
	Idle     int         // parked workers now
	Spinning int         // workers looking for work now
}

// Stats returns a snapshot of the pool's counters. Any goroutine may call
// it at any time; the counters are read one by one, so a snapshot taken
// while tasks run is not an atomic cut. Counting is always on: each counter
// is a plain store by the worker that owns it.
func (p *Pool) Stats() Stats {
	s := Stats{
		Workers:  make([]WorkerStats, len(p.workers)),
		Inject:   p.inject.len(),
		Idle:     int(p.nidle.Load()),
		Spinning: int(p.nspinning.Load()),
	}
	for i, w := range p.workers {
		ws := w.snapshot()
		s.Workers[i] = ws
		s.Total.add(ws)
	}
	return s
}

func (w *Worker) snapshot() WorkerStats {
	c := &w.stats
	return WorkerStats{
		Ran: c.ran.load(), Spawned: c.spawned.load(), StolenIn: c.stolenIn.load(),
		StolenOut: c.stolenOut.load(), StealAttempts: c.stealAttempts.load(), Steals: c.steals.load(),
		GlobalGrabs: c.globalGrabs.load(), Overflows: c.overflows.load(),
		Parks: c.parks.load(), Wakeups: c.wakeups.load(), Panics: c.panics.load(),
		RingLen: w.ring.Len(), Runnext: w.runnext.Load() != nil,
	}
}

func (t *WorkerStats) add(o WorkerStats) {
	t.Ran += o.Ran
	t.Spawned += o.Spawned
	t.StolenIn += o.StolenIn
	t.StolenOut += o.StolenOut
	t.StealAttempts += o.StealAttempts
	t.Steals += o.Steals
	t.GlobalGrabs += o.GlobalGrabs
	t.Overflows += o.Overflows
	t.Parks += o.Parks
	t.Wakeups += o.Wakeups
	t.Panics += o.Panics
	t.RingLen += o.RingLen
	t.Runnext = t.Runnext || o.Runnext
}

package steal

import "sync/atomic"

// counter is a statistics counter written by one goroutine, its worker.
// The worker bumps a plain field (no atomic, no locked instruction: on amd64
// even atomic.Store is a locked XCHG) and publishes it to an atomic every
// statsFlushEvery tasks and whenever it parks; Stats reads the published
// value. So counting is always on and costs an increment.
type counter struct {
	local uint64
	pub   atomic.Uint64
}

func (c *counter) inc()         { c.local++ }    // owner only
func (c *counter) add(n uint64) { c.local += n } // owner only
func (c *counter) flush()       { c.pub.Store(c.local) }
func (c *counter) load() uint64 { return c.pub.Load() }

// sharedCounter is a counter that goroutines other than its worker bump.
type sharedCounter struct{ v atomic.Uint64 }

func (c *sharedCounter) incAtomic()         { c.v.Add(1) }
func (c *sharedCounter) addAtomic(n uint64) { c.v.Add(n) }
func (c *sharedCounter) load() uint64       { return c.v.Load() }

// statsFlushEvery is how many tasks a worker runs between publishing its
// counters; Stats of a busy pool lags by at most this many per worker.
const statsFlushEvery = 64

type workerStats struct {
	ran, spawned, stolenIn, stealAttempts, steals  counter
	globalGrabs, overflows, parks, panics, skipped counter
	completed                                      counter
	taken                                          liveCounter // submitted tasks started or skipped
	// StolenOut and Wakeups are counted in the worker itself (stolenOut,
	// wakeups), apart from these, since thieves and wakers bump them.
}

// flush publishes the owner's counters. Owner only.
func (s *workerStats) flush() {
	for _, c := range [...]*counter{&s.ran, &s.spawned, &s.stolenIn, &s.stealAttempts,
		&s.steals, &s.globalGrabs, &s.overflows, &s.parks, &s.panics, &s.skipped, &s.completed} {
		c.flush()
	}
}

// WorkerStats are one worker's counters since the pool started.
type WorkerStats struct {
	Ran           uint64 // tasks run
	Spawned       uint64 // tasks spawned (Worker.Spawn, Spawn) from tasks running here
	StolenIn      uint64 // tasks this worker stole from others
	StolenOut     uint64 // tasks others stole from this worker
	StealAttempts uint64 // victims looked at while stealing
	Steals        uint64 // successful steals (each moves StolenIn/Steals tasks on average)
	GlobalGrabs   uint64 // times it took work from the inject queue
	Overflows     uint64 // times its ring was full and spilled half to the inject queue
	Parks         uint64 // times it went to sleep
	Wakeups       uint64 // times another goroutine woke it
	Panics        uint64 // tasks that failed here: panicked or called runtime.Goexit
	Skipped       uint64 // tasks not run because their context was done before they started
	// Completed counts tasks that returned here without a panic or Goexit.
	// Ran counts those, the failed and the skipped ones, and also the
	// halves of Join, Fork2 and For that ran inline in the task that forked
	// them, which are part of that task and not counted on their own.
	Completed uint64
	RingLen   int  // tasks in its ring now
	Runnext   bool // whether its runnext slot holds a task now
}

// Stats is a snapshot of the pool's counters: per worker and summed. The
// sum includes the spare workers that stand in for a worker while its task
// is in Block, or waits after lending a task (see the package
// doc's "Waiting inside the pool"); Workers lists the pool's own.
type Stats struct {
	Workers []WorkerStats
	Total   WorkerStats // sum over workers and spares (RingLen summed, Runnext: any)
	Inject  int         // tasks in the inject queue now
	// Idle counts the pool's own workers parked now (spares left out):
	// asleep for want of work, or asleep in a wait (Join, a group's Wait,
	// a Future's) whose tasks run on other workers. Such a worker runs
	// nothing and takes any work that comes, so it counts as idle.
	Idle     int
	Spinning int // workers looking for work now, spares included

	// Submitted counts the tasks queued through the pool's inject queue
	// since it started: by Submit, SubmitBatch, TrySubmit, Go, Run, Join,
	// For, ForRange, PoolSpawn, TryPoolSpawn, the PoolMap functions and the
	// Go of a Pool.Group or PoolResultGroup, from outside the pool or
	// inside (a Run inside a task runs inline, queuing nothing). Backlog is how many of them
	// have neither started nor been skipped: the submitted work still
	// waiting, in the inject queue or in a worker's own queue (WithMaxQueued
	// counts only those still in the inject queue). Both are exact at
	// once, not lagging like Total.
	Submitted uint64
	Backlog   int
	// QueueWait is how long submitted tasks waited before a worker started
	// them (or skipped them), timed for one task in QueueWait.Every.
	QueueWait WaitHistogram
	// TaskTime is how long the same timed tasks ran, from their start to
	// their return (a panic or Goexit included): the time a task spends
	// waiting inside the pool (Join, Wait, Block), and running other tasks
	// meanwhile, is part of it. Skipped tasks are left out.
	TaskTime WaitHistogram

	// PanicsKept counts the panics kept for Close since the pool started,
	// PanicsDropped those only counted because as many as WithPanicLimit
	// allows were already kept. The rest of Total.Panics went to a panic
	// handler or to their waiters. A future's panic that nobody has
	// waited for is counted kept, or dropped, only once Close takes it,
	// since a waiter may still come for it. Unlike Total,
	// both are exact at once.
	PanicsKept, PanicsDropped uint64
}

// Stats returns a snapshot of the pool's counters. Any goroutine may call
// it at any time. Counting is always on and costs a plain increment: each
// worker publishes its counters every 64 tasks and whenever it parks, so
// the snapshot of a busy pool lags by up to 64 tasks per worker and is not
// an atomic cut; once the pool is idle or closed it is exact (a snapshot
// that shows every worker idle sees all their tasks; Parks, counted as a
// worker falls asleep, may trail it by a moment). Idle leaves spares out:
// a spare that goes on running tasks after the wait it stood in for has
// ended publishes its counts only every 64 tasks and when it parks or
// retires, so a snapshot may show every worker idle and no backlog while
// that spare still runs a task and the tasks it ran before are not yet
// counted.
func (p *Pool) Stats() Stats {
	p.made("Pool.Stats")
	// The backlog first, then Idle, then the counters: a snapshot that
	// shows no backlog and every worker idle then has every submitted task
	// in its counters. A worker is off the idle list whenever it takes a
	// task, and publishes its counters before it goes back on, so each
	// task taken before the backlog was read was run and published before
	// Idle was read. Read in the other order, Idle could see a worker that
	// was about to take the last submissions (on the idle list, making its
	// last look at the queues), and the backlog see them taken while they
	// ran, not yet counted.
	taken := p.takenCount()
	submitted := p.inject.claimedExact()
	s := Stats{
		Workers:  make([]WorkerStats, len(p.workers)),
		Inject:   p.inject.len(),
		Idle:     p.idleWorkers(),
		Spinning: int(p.nspinning.Load()),
	}
	for i, w := range p.workers {
		ws := w.snapshot()
		s.Workers[i] = ws
		s.Total.add(ws)
	}
	for _, ws := range p.spareStats() {
		s.Total.add(ws)
	}
	s.Submitted = submitted
	// taken was read first and never exceeds submitted, so Backlog >= 0.
	s.Backlog = int(uint(s.Submitted) - taken)
	s.QueueWait = p.waits.snapshot(p.metrics.every)
	s.TaskTime = p.runs.snapshot(p.metrics.every)
	s.PanicsKept, s.PanicsDropped = p.panics.counts()
	return s
}

func (c *core) snapshot() WorkerStats {
	s := &c.stats
	return WorkerStats{
		Ran: s.ran.load(), Spawned: s.spawned.load(), StolenIn: s.stolenIn.load(),
		StolenOut: c.stolenOut.load(), StealAttempts: s.stealAttempts.load(), Steals: s.steals.load(),
		GlobalGrabs: s.globalGrabs.load(), Overflows: s.overflows.load(),
		Parks: s.parks.load(), Wakeups: c.wakeups.load(), Panics: s.panics.load(), Skipped: s.skipped.load(),
		Completed: s.completed.load(),
		RingLen:   c.ring.Len(), Runnext: c.runnext.Load() != nil,
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
	t.Skipped += o.Skipped
	t.Completed += o.Completed
	t.RingLen += o.RingLen
	t.Runnext = t.Runnext || o.Runnext
}

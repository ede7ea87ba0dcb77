// Package steal is a work-stealing task pool for Go. A task costs a queue
// operation instead of a goroutine; a task may wait for the work it starts
// without deadlocking the pool, even on one worker; and fork-join code
// (Fork2, Join2, For) runs without allocating.
//
// # Usage
//
//	p := steal.New() // one worker per GOMAXPROCS; idle workers park
//	defer p.Close()  // runs everything queued, then returns kept panics
//
//	p.Go(func() { work() }) // fire and forget, from any goroutine
//
//	var n int
//	err := p.Run(func(w *steal.Worker) { // fork-join from ordinary code
//		a, b := steal.Fork2(w, count, left, right) // no allocation
//		n = a + b
//	})
//
//	g := p.Group(ctx) // errgroup-style, from any goroutine
//	for _, f := range files {
//		g.Go(func(w *steal.Worker) error { return process(w, f) })
//	}
//	err = g.Wait() // first error; a *SkippedError if children never ran
//
// # At a glance
//
// Every entry point comes in two families. Inside a task, a function takes
// the task's *Worker handle first and its work sees that task's context.
// From anywhere else, or shared between goroutines, use the Pool's methods
// or, where Go's generics rule out a method, the Pool... function, which
// takes a context and the pool. Called from a task of the same pool, the
// "from anywhere" forms run inline or help instead of blocking.
//
//	                      inside a task (w *Worker)     from anywhere
//	run a function        w.Spawn                       p.Submit, p.TrySubmit, p.Go, p.SubmitBatch
//	run it and wait       call it                       p.Run
//	two halves            Join, Join2, Fork2            p.Join
//	a loop                For, ForRange                 p.For, p.ForRange
//	a result later        Spawn (a *Future)             PoolSpawn, TryPoolSpawn
//	map a slice           Map, MapErr                   PoolMap, PoolMapErr
//	map, at most n at once MapLimit, MapErrLimit        (compose with a SetLimit group)
//	map a sequence        MapSeq, MapSeqErr             PoolMapSeq, PoolMapSeqErr
//	errgroup              NewGroup                      p.Group
//	errgroup of results   NewResultGroup                PoolResultGroup
//	block (I/O, cgo)      w.Block                       not needed
//
// A *Worker is valid only inside the task that received it: kept after the
// task returned, or used by another goroutine while the task waits, it
// panics with a message that says so. A nil function or a nil *Worker is
// refused at the call with a panic that names the call, before anything
// is queued.
//
// # Waiting inside the pool
//
// A task that waits (Join, Group.Wait, Future.Wait) does not block its
// worker: it runs the work it waits for meanwhile, and hands anything else
// to a spare worker, so waits nest to any depth, even on one worker. The
// rules:
//
//   - Any task may wait for any work of the pool: its own forks, groups
//     and futures, a Pool.Group that other tasks fill, a future another
//     task made.
//   - A wait for itself panics instead of hanging: a Pool.Group's Wait
//     from one of its own children, or from a future such a child spawned
//     and waits for. The pool sees only its own waits: a cycle through
//     another pool (a task of pool A waiting for a future of pool B whose
//     task waits for A's group) hangs, as it would with goroutines.
//   - A task should not wait, through a channel or a lock, for what a task
//     it descends from does after that task's own wait began; and a child
//     of a limited group (Group.SetLimit) should not wait for what the
//     caller of Go does after that Go.
//   - Nor should a future or a NewGroup child wait for work that a task
//     it descends from is part of (a Pool.Group that task is a child of,
//     that task's own future), even if that task never waits for it: a
//     waiting task runs its own futures and children above itself, on its
//     own goroutine, and a wait there for work that includes the task
//     beneath could never end. Such a wait panics instead of hanging, as
//     does a wait for itself, when the pool sees the cycle as the wait
//     begins to block; it follows only the first waiter of each future or
//     group, so a cycle that runs through a second waiter, or through a
//     NewGroup child run above the task beneath, can go unseen and hang.
//   - A task that blocks outside the pool (I/O, a lock, a channel) wraps the
//     call in Worker.Block, so that a spare worker steals in its place.
//   - Close and Shutdown from a task of the same pool return ErrInsideTask.
//
// # Errors and cancellation
//
// A task runs with the context of the place that created it: Submit's
// (joined with the pool's), the spawning task's, the group's. A task whose
// context ends before it starts is skipped, never silently: its waiter gets
// a *SkippedError and Stats counts it. The parts of a fork (Join, Fork2,
// For) always run, since the task that forked them needs them. A group's
// first error cancels its context, as errgroup's does.
//
// # Spawned tasks run
//
// A task a user spawned runs, or an error that someone receives says it
// did not. A task spawned inside the pool (Worker.Spawn, Spawn) may start
// after the scope it was spawned in has ended: its task has returned, the
// group round whose child spawned it has been waited for (NewGroup,
// Pool.Group), the map whose call spawned it has returned (MapErr,
// MapSeqErr, PoolMap and PoolMapErr called from a task). Such an end is no
// failure of the spawned task, so it sees the context of the place that
// opened the scope, less the scope's own cancellation (its end, or a
// group's or map's first error), and runs. Only the contexts a user
// cancels (the one given to Submit, PoolSpawn, Pool.Group, PoolMap...)
// and the pool's (Shutdown giving up) skip it, and then it is reported:
// a future's Wait returns a *SkippedError, and a Worker.Spawn's task,
// which nobody waits for, or a future nobody has waited for by then, is
// counted in the *SkippedError that Close or Shutdown returns, joined
// with the kept panics.
//
// # Panics and Goexit
//
// A panicking task never kills its worker. The panic becomes a *PanicError
// (value, worker, stack), and every panic reaches a waiter, the panic
// handler, or Close. For work someone waits for, one rule: a call that
// returns an error returns the panic as a *PanicError (Run, Pool.Join,
// Pool.For, Pool.ForRange, MapErr, MapSeqErr, MapErrLimit, the Pool...
// maps, Group.Wait, Future.Wait); a call that returns no error re-raises
// it in its caller (Join, Join2, Fork2, For, ForRange, Map, MapSeq,
// MapLimit), once the parts it offered to thieves have finished. Such a
// call reports one failure, as errgroup's Wait returns one error: the
// first (for Join, Join2 and Fork2, the first half's if both fail); a
// panic of another part or child of the same call is only counted
// (WorkerStats.Panics), not passed on to the handler or Close. A panic
// nobody waits for goes to the handler set with WithPanicHandler, or is
// kept (the first 64, WithPanicLimit) for Close and Shutdown to return. A
// future may be waited for later or never: its waiters get the panic, and
// a handler, if there is one, hears of it at once as well; without one,
// Close keeps it if nobody has waited for the future by then. runtime.Goexit in a task is reported as a
// *PanicError wrapping ErrGoexit, and the pool keeps its worker.
//
// # Backlog and shutdown
//
// WithMaxQueued caps the tasks submitted from outside that no worker has
// picked up: Submit then waits for room, TrySubmit returns ErrBacklogFull,
// and no task is ever dropped. Spawns from inside a task never wait. Close
// stops intake (ErrClosed), runs every queued task and everything those
// tasks spawn, and returns the kept panics. Shutdown does the same until
// its context ends, then cancels the pool's context and skips the tasks
// that have not started.
//
// # Watching the pool
//
// Stats counts tasks submitted, completed, failed and skipped, the backlog,
// steals, and histograms of queue waits and of run times (one task in 64
// by default, WithQueueWaitSampling); Pool.Expvar publishes it, and the
// module github.com/worksteal/steal/prom exports it to Prometheus.
// WithStallDetector reports a worker stuck on one task while work waits
// behind it; WithSchedTrace prints a line like the runtime's
// GODEBUG=schedtrace for the pool; Named names tasks in WithTimeline's trace, the Go execution tracer
// and, with WithProfileLabels, in profiles. Off, all this costs one atomic
// load per task.
//
// # Cost
//
// A task is a 48-byte record and a few atomic operations; fork-join with
// Fork2 allocates nothing. docs/benchmarks.md and docs/xlang.md compare the
// pool with goroutines, worker-pool libraries, Rayon and ForkJoinPool, and
// docs/costs.md has the measured cost of each operation. The scheduler's
// design is described at the top of sched.go.
package steal

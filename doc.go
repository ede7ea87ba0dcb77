// Package steal is a work-stealing task pool for Go: the Go runtime's
// scheduler rebuilt in user space for tasks, so that a program pays for a
// queue operation per task instead of a goroutine, and a task may wait for
// its own children without deadlocking the pool.
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
// The rule of the API: a function whose first argument is a *Worker (Join,
// Fork2, Join2, For, Map, Spawn, NewGroup, and the Worker's methods) is for
// the task that received that handle, and its work sees that task's
// context; a method of Pool, or a function named Pool... for generic ones,
// is for any goroutine. A task waiting inside the pool runs other tasks, so
// waits nest to any depth, even on one worker (the rules are under Waiting
// on the pool from inside it).
// A nil function (a task, a body, f, a sequence) is refused at the call
// with a panic that names the call, before anything is queued.
//
// # Design
//
// A Pool runs W workers, each one goroutine. W defaults to
// runtime.GOMAXPROCS(0) read when the pool starts (since Go 1.25 that already
// follows the container's CPU quota) and is set with WithWorkers.
//
// Each worker owns
//
//   - runnext, one slot holding the task it spawned last. A task spawned from
//     inside a task goes there and runs next, while its data is in cache; the
//     task it displaces moves to the tail of the ring.
//   - a ring, the runtime's 256-slot run queue (deque.Ring). When it is full,
//     half of it moves to the inject queue in one batch.
//
// The pool owns the inject queue: unbounded, fed by Submit, SubmitBatch,
// TrySubmit, Go and a Pool.Group's children from outside the pool, and by
// ring overflow. A submission takes no lock: one fetch-add claims a
// position (SubmitBatch claims up to 64 at once), one atomic store
// publishes a 16-byte entry there (the layout of crossbeam's Injector:
// segments of entries, linked). Workers take from it under a lock, in
// batches, and make the task's record when they take it, from a slab of
// 10; the overflow, already records, waits in a list beside the entries.
//
// # Finding work
//
// A worker looks for its next task in this order (findWork):
//
//  1. every 61st task it runs, one task from the inject queue first, so that a
//     worker busy with its own spawns cannot starve outside submissions;
//  2. runnext, but not more than maxRunnextStreak times in a row, so a pair of
//     tasks that keep spawning each other cannot starve the ring;
//  3. its ring;
//  4. a batch from the inject queue: min(128, len/W + 1) tasks, one to run and
//     the rest into its ring;
//  5. stealing: up to four passes over the other workers in a random order
//     (a random start and a stride coprime to W), taking half of a victim's
//     ring with one CAS. Only on the last pass may it take a victim's runnext,
//     and only if the same task still sits there after stealRunnextAfter (the
//     runtime's 3 µs): a worker between tasks takes its runnext sooner than
//     that and should keep it; one stuck in a long or blocked task should
//     not.
//
// # Spinning and parking
//
// A worker that is stealing is spinning. At most half of the busy workers spin
// at once (2*nspinning < W - nidle); a worker that may not spin, or that spun
// and found nothing, parks: it puts itself on the idle list and blocks on its
// own wake channel. An idle pool therefore runs nothing: no polling loop, no
// timer.
//
// New work wakes a parked worker only when no worker is spinning (wakep), and
// the woken worker starts out spinning. When a spinning worker finds work it
// stops spinning, and if it was the last spinner it calls wakep, so a burst of
// work wakes workers one after another, each only once it is needed.
//
// The wakeup protocol. The invariant is: whenever a task is queued and a
// worker is parked, some worker is spinning or will look at every queue
// before it parks. Two orders guarantee it:
//
//   - a producer stores the task (runnext, ring or inject queue) and only
//     then reads nspinning and nidle in wakep. In the inject queue the
//     claim of a position is the store that counts: from then on the
//     queue's length includes the entry, even before its producer has
//     written it. A worker that finds the entry at the head not yet
//     written looks again a few times (its producer is a few instructions
//     from done), then yields its processor with the queue's lock
//     released (the producer may have been preempted and need one) and
//     tries again, so a worker never parks on a claimed entry;
//   - a worker about to park first joins the idle list, then stops counting
//     as spinning, and only then looks at every queue once more; if it sees
//     work it leaves the idle list and spins again. Every parking worker
//     does this, spinning or not: the runtime skips it for workers that were
//     not allowed to spin, but here a task that blocks keeps its worker, so
//     the last spinner's wakep may find nobody on the idle list yet.
//
// Because sync/atomic is sequentially consistent, either the producer sees the
// worker in the idle list with nspinning == 0 and wakes it (or another idle
// worker), or the worker's last look sees the task. TestNoLostWakeup checks
// this under the race detector. The producer's store must be one of those
// sequentially consistent atomics, not merely a release store: the deque's
// Push and the ring's Put publish with one (a locked exchange on x86), and
// the deque package's TestPushOrderedBeforeLaterLoads and
// TestRingPutOrderedBeforeLaterLoads fail if a later load can pass it. (The
// inject queue's claim is a fetch-add, a locked instruction too, so the
// store of the entry itself, after the claim, needs no such order.)
//
// A worker that waits inside a task (Join, Group.Wait, Future.Wait) and finds
// nothing to help with sleeps by the same protocol, on the idle list, so new
// work wakes it too. It never runs a task while still counted as spinning,
// and while it sleeps the pool is not taken for done. A waiting worker
// that has handed a submitted task to a spare (see Waiting on the pool
// from inside it) blocks off the idle list instead until its wait is over:
// the spare stands in for it, and its queues stay among the victims, for
// the spare and the other workers to steal from.
//
// # Handles and contexts
//
// Every task record is also the *Worker handle its function receives, so
// each task has a handle of its own at no extra cost. A worker remembers the
// handle of the task it runs now (cur), and clears it while that task waits
// in Join, Group.Wait or Future.Wait. Every entry point that needs the
// worker checks that its handle is the current one: a handle kept after its
// task returned, or used by a goroutine the task started while the task
// waits, panics with a message that says so, instead of corrupting a queue
// only the owner may touch.
//
// A task record carries the context of the place that created it: Submit's
// context (joined with the pool's when the task starts), the pool's for Go
// and Run, the spawning task's for Spawn, Join, Fork2, For and Futures, the
// group's for a Group child. Whoever runs the task, the task sees that
// context, so a stolen half of a Join inside a group child is cancelled with
// the group. A task with a life of its own (Submit, Go, Spawn, a Group child,
// a Future, Run) whose context is done before it starts is skipped, never
// silently: Stats.Skipped counts it, and whoever waits for it gets a
// *SkippedError. The parts of a fork (Join, Fork2, For) always run, since
// the task that forked them needs them.
//
// # Waiting on the pool from inside it
//
// A task that blocked its goroutine waiting for the pool could wait for its
// own worker. So every call that can block on the pool (Run, Join and For
// of Pool, Close, Shutdown, a Pool.Group's Wait, Future.Wait(nil), Submit on
// a full backlog) first checks, by goroutine id, whether its caller is one
// of the pool's worker goroutines, and then runs the work inline, helps
// instead of blocking, queues past the cap, or (Close, Shutdown) returns
// ErrInsideTask. The check reads the caller's stack (microseconds), so it
// is made only where the call is about to block anyway.
//
// So any task may wait for any work of the pool: its own forks, groups
// and futures, a Pool.Group that other tasks fill, a future another task
// made, from any depth of nesting and on any number of workers. What
// remains forbidden is what no scheduler could run, a wait for itself: a
// Pool.Group's Wait called from inside one of its children (or a part
// forked there) panics at once, and one called from a future that such a
// child spawned and waits for panics once both are waiting, as does any
// other such cycle that the pool can see; Join and For cannot form one.
//
// How that holds: a task that waits runs other tasks on its goroutine,
// above its own frames, and cannot go on before they return, so it runs
// only its own descendants (what it forked and spawned, and so on down)
// and tasks of the work it waits for (the tasks its wait counts, and
// those that they in turn wait for, a lineage every task carries: the
// design notes of sched.go argue it). Any other task it comes upon goes
// to a spare worker, as with Block, which runs it at the top of a
// goroutine of its own, and the waiting task then runs nothing more until
// its wait is over. Spares are not capped: each one stands in for a
// goroutine that is blocked.
//
// Two waits are outside that rule. A task should not wait, through a
// channel or a lock, for what a task it descends from does after that
// task's own wait began: the descendant may be running above it. And a Go
// waiting for a slot of a limited group (Group.SetLimit) runs the group's
// children, so a child of a limited group should not wait for what the
// caller of Go does after that Go.
//
// # Inside a task and outside
//
// Entry points come in two forms. Inside a task, functions take the task's
// *Worker as their first argument and their context from it: Join, Join2,
// Fork2, For, ForRange, Spawn, Map, MapErr, MapSeq, MapSeqErr, NewGroup
// and NewResultGroup. Outside the pool, or shared between goroutines, they
// belong to the pool: the methods Pool.Run, Pool.Join, Pool.For,
// Pool.ForRange and Pool.Group, and, since Go methods cannot have type
// parameters, the functions PoolSpawn, PoolMap, PoolMapErr, PoolMapSeq,
// PoolMapSeqErr and PoolResultGroup, which take a context and then the
// pool. Called from
// a task of the same pool, the outside forms run inline or help, as above.
// Group's documentation says why groups keep two constructors.
//
// # Goexit
//
// runtime.Goexit in a task (t.FailNow does it) ends the worker's goroutine,
// and nothing can stop it. Each task's deferred finish tells a Goexit from
// a return and from a panic, and reports the task as failed with a
// *PanicError wrapping ErrGoexit, like a panic; so is every task that
// goroutine was running beneath it (a waiting task runs others on its own
// goroutine). A Goexit in code that a fork-join call runs on the calling
// goroutine (the first half of Join, Fork2 or Join2, a body of For or
// ForRange, a call of the Map family's f, or any task it runs while it
// waits for a part a thief took) ends that call only once the parts it
// offered to thieves have finished, as a panic does. The worker
// loop's deferred call then starts a new goroutine for the same worker, so
// the pool keeps its workers.
//
// # Blocking tasks
//
// A task that blocks (I/O, cgo, a lock) holds only its worker. Its ring stays
// stealable, and so does its runnext, which a thief takes once it has sat
// there for stealRunnextAfter. Fork-join code blocks through Worker.Block:
// while fn runs, a spare worker with queues of its own joins the victims
// (the list thieves and the parking protocol look at) and steals in the
// blocked worker's place. Block returns as soon as fn does, never waiting
// for the spare: the spare finishes its task and drains its own queues,
// then leaves the victims and retires. The pool is not done while a spare
// runs.
//
// # Backlog, panics, shutdown
//
// WithMaxQueued caps tasks submitted from outside that no worker has picked
// up yet: Submit (and SubmitBatch, for what does not fit) then blocks until
// there is room, its context ends or Close or Shutdown begins (ErrClosed),
// and TrySubmit returns ErrBacklogFull. No
// task is ever dropped. A worker picks
// tasks up in batches, into its own queue, and makes room for the whole
// batch with one atomic add, so a Submit held at the cap is woken once a
// batch, not once a task. Spawns from inside a task never block, since a
// worker that waits for room in its own queue could wait forever.
//
// A panicking task never kills its worker. The panic becomes a *PanicError
// (value, worker and stack; its Error is one line, without the stack). A
// panic in a task someone waits for (Run, Join, For, Group, a Future) goes
// to that waiter. Any other goes to the handler set with WithPanicHandler or
// Pool.SetPanicHandler; without one, the pool keeps the first 64
// (WithPanicLimit) and only counts the rest, and Close or Shutdown returns
// the kept ones joined into one error with a *DroppedPanicsError saying how
// many more there were. Memory held for panics is therefore bounded.
// Default(), which nobody closes, instead logs each panic through log/slog
// and keeps none. Stats counts panics kept and dropped.
//
// Close stops intake (Submit returns ErrClosed), runs every queued task and
// everything those tasks spawn, and returns when every worker goroutine has
// exited. The pool is done when it is closed, its inject queue is empty and
// every worker is parked: a parked worker has an empty ring and runnext, and
// only a worker's own running task can refill them.
//
// # Watching the pool
//
// Stats counts what pool users monitor: submitted tasks and the backlog
// not yet picked up, tasks completed, failed and skipped, and a histogram
// of how long submitted tasks wait in the queue (about one in 64 timed,
// chosen by a hash of its place in the queue).
// Pool.Expvar publishes it through expvar; the module
// github.com/worksteal/steal/prom exports it to Prometheus. Named gives
// tasks a name, carried in their context, that shows in the timeline of
// WithTimeline, in the Go execution tracer (each task a region named after
// it, each group round a trace task) and, with WithProfileLabels, in CPU
// and goroutine profiles. Off, all this costs one atomic load per task;
// docs/metrics.md has the costs when on and dashboard queries.
//
// # Cost
//
// Measured on a 2-core AMD EPYC VM shared with other jobs (GOMAXPROCS=2,
// Go 1.26); medians over runs, ratios taken within one run, ranges where
// the machine's noise matters. The same benchmark can vary by 2x between
// runs seconds apart, so the ranges are wide. Scheduler (sched_bench_test.go):
//
//	go test -count=3 -run XXX -bench 'Spawn1M|ChainedSpawn|PingPong|SpawnMany|YieldMany|Imbalanced' -benchtime 5x .
//
// gave:
//
//   - 1,000,000 tiny tasks (each a WaitGroup.Done), nine runs: Spawn from
//     inside a task 121 ns/task (91-142), Submit from one outside goroutine
//     109 ns/task (91-123), a goroutine per task 821 ns/task (379-846).
//     steal is 6.5x faster than goroutines with Spawn (4.2-6.9) and 7.0x
//     with Submit (4.2-7.5). A spawned
//     task allocated its record (then 64 bytes; now 48, from a per-worker
//     slab of 10); the ring and runnext cost
//     one atomic swap, one slot store and one CAS per task. A submitted
//     task takes one fetch-add and one atomic store, costs the pool 16
//     bytes while it waits, and gets a 48-byte record from the slab of the
//     worker that picks it up (a Go function reuses one).
//     BenchmarkSubmitProducers and docs/benchmarks.md compare submission
//     with a channel of funcs.
//   - Tokio's scheduler benchmarks, steal vs goroutines, nine runs: chained
//     spawn (1000 deep) 235 us (137-418) vs 322 us (195-488), a tie: the
//     ratio goes from 0.5x to 3.5x run to run, median 1.2x; ping-pong (1000
//     pings, 3 tasks each) 301 us vs 1.96 ms (6.7x, 4.1-7.3); spawn-many
//     (10,000 tasks) 1.41 ms spawned inside, 1.19 ms submitted from outside,
//     vs 8.89 ms (6.4x, 7.8x; 1.9-10x over runs); yield-many (200 tasks x
//     1000 yields, a yield being a re-Spawn of the continuation vs
//     runtime.Gosched) 20.3 ms vs 115 ms (5.9x, 2.0-8.1).
//   - The imbalanced demo (1000 tasks each summing 1e6 ints, all spawned
//     from one task on one worker): workers=1 418 ms, workers=2 212 ms,
//     parallel efficiency T1/(2*T2) 1.02 at the median of nine runs
//     (0.89-1.31; above 1 is noise, the two sub-benchmarks run one after
//     the other); runs that overlap other jobs on the two cores fall to
//     0.34-0.49, so it stays near 1 only on a quiet machine.
//
// Fork-join (join_test.go, forkjoin_bench_test.go):
//
//	go test -run XXX -bench 'Join|Sort10M|Sum100M' -benchtime 10x -count 2 .
//
// gave:
//
//   - fib(30) with a fork on every call and no cutoff: sequential 3.9-4.1
//     ms; Fork2 6.6-7.6 ms (1.6-1.9x the sequential time on two cores)
//     with no allocation per fork; Join with closures 48-55 ms (12-14x),
//     all of it the two allocations Go makes for the closures (b escapes
//     into its task, and with it the variable it writes), which alone, in
//     a plain recursion with no pool (BenchmarkJoin/floor-closures), take
//     52-60 ms; a goroutine and WaitGroup per call 1.63-1.75 s. At fib(35),
//     docs/xlang.md measures these against Rayon's join and Java's
//     ForkJoinPool side by side: Fork2 takes less time than either, while
//     Join with closures takes several times Java's, on closure
//     allocations alone, which is why hot recursive code should use Fork2
//     or Join2. Most forks
//     cost a length check and a deferred call, because Join and Fork2 offer
//     work to thieves only while the deque is short (see Join).
//   - Tree recursion the way most code is written, a task per child, on
//     UTS's binomial tree (BenchmarkUTS, 3.9M nodes, a few ns of work
//     each), on a quieter day (load 2-3): sequential 28-30 ms, Fork2 over
//     halves of each node's children 65-100 ms, a NewGroup per node with
//     a Go per child 0.49-0.87 s and a Spawn per child 0.59-0.97 s. A
//     group of two children is one 320-byte allocation (the group, its
//     context and both task records; further children's 48-byte records
//     come 10 to an allocation), a Spawn one of 144 bytes; with the
//     caller's closures a walk allocates 460 MB in 5.7M allocations with
//     groups and 658 MB in 8.5M with futures. The caller's closures alone,
//     called in a plain recursion with no pool (BenchmarkUTS/
//     floor-closures), take 124-223 ms on one core, 4-8x the sequential
//     walk: on two cores no errgroup-style walk of this tree in Go can
//     beat the sequential one. With a 384-byte object per node as well
//     (floor-closures+group) it is 173-338 ms, and the group walk on two
//     workers about 2.5x that: the rest is the queues, the write barriers
//     and the collector's work while it runs (a GOGC of 400 took a
//     quarter to a third off). docs/xlang.md has these walks against
//     Rayon and Java's ForkJoinPool, measured side by side: a task per
//     child takes about twice the time of rayon::scope on the deep
//     binomial tree (each worker's stack nests a few frames per level of
//     it, and the collector scans them all in every cycle) and less than
//     twice on the shallow geometric one, while Fork2 matches or beats
//     Rayon's join on fib and beats sequential Go on the geometric tree.
//   - Sorting 10,000,000 ints (one quiet run, -benchtime 3x): slices.Sort
//     1.06 s; quicksort with Fork2 0.53 s vs a goroutine per split 0.56 s;
//     mergesort 0.69 s vs 0.66 s, both with leaves of 2048. With a cutoff
//     that coarse both schedulers see few thousand tasks and tie; steal's
//     edge is that it needs no cutoff.
//   - Summing 100,000,000 int32s: one loop 36-37 ms, ForRange 19-25 ms, two
//     goroutines on hand-cut halves 19-29 ms: ForRange matches hand-chunking
//     without being told the number of cores or a chunk size.
package steal

// Scheduler design
//
// This file and the other sched_*.go files are the scheduler: the private
// core type (one worker's queues and loop), finding and stealing work,
// parking, the inject queue, waiting, lending and spares. The package doc
// is the user's contract; this header is the contributor's. HACKING.md
// says how to test a change here.
//
// Invariants a change must keep:
//
//   - Exactly once: every queued task runs once or is skipped once (and
//     counted, and reported to its waiter); never twice, never lost.
//   - No lost wakeup: whenever a task is queued and a worker is parked,
//     some worker is spinning or will look at every queue before it parks
//     (see Spinning and parking).
//   - Only the owner touches a core's owner-only fields, its ring's tail
//     and its deque's bottom; thieves touch only the heads and runnext,
//     each with a CAS.
//   - A waiting task runs above itself only its own descendants and the
//     tasks of the work it waits for; anything else goes to a spare (see
//     Waiting).
//   - An idle pool runs nothing: no polling loop, no timer.
//
// # Queues
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
// that has handed a task to a spare (see Waiting) blocks off the idle
// list instead until its wait is over: the spare stands in for it, and its
// queues stay among the victims, for the spare and the other workers to
// steal from.
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
// # Waiting
//
// A task that waits (Join, Fork2, For, Group.Wait, Future.Wait, a Go at a
// group's limit) helps: it runs tasks on its own goroutine, above its own
// frames, until what it waits for is done. A task run there cannot let the
// waiting task go on before it returns, so it must not wait, directly or
// through others, for anything the waiting task does after its wait, nor
// for anything beneath it on the goroutine. The invariant:
//
//	a task x waiting for latch l runs above itself only
//	  (a) its own descendants: what x, or a task run above x, pushed on
//	      the worker's deque since x began (at or above core.mark), and
//	  (b) tasks of the work l counts: tasks whose latch is l, or whose
//	      latch's task is waited for, through a chain of joiner links,
//	      by a task whose latch is l.
//
// Anything else it comes upon is lent to a spare, never run above it.
//
// Lineage. Every latch has a joiner: the latch of the task that waits for
// the latch's work. A part (Join, Fork2, For, the Map family) gets it when
// forked, from its forker, which always waits for its parts. A group or
// future gets it when a task begins waiting for it, and loses it when that
// wait ends; while a wait is in place its latch cannot open, so no link
// leads through a task that is done. A task t is in the work of l
// (inScope) when the chain t.done, t.done.joiner, ... reaches l. A stolen
// task costs a few loads to check; the common case, a task popping the
// part it has just forked, is (a), one subtraction, and a fork one plain
// store, so fork-join keeps its speed and its zero allocations. A chain
// longer than maxLineage, or a second waiter of a latch that already has
// a joiner, gives a no, which costs a spare and is never wrong. The mark
// of (a) is exact because no item of a deque ever moves to another index
// while it waits there (a join takes its part back with PopIf, never with
// a Pop and a Push back).
//
// Why it is enough. Take a task u run above x. In case (b) x waits,
// through the chain, for u to finish; if u waited for something x does
// after its wait, or for a task beneath x (which waits for x in turn, or
// x would not run above it), that would be a cycle of waits in the
// program, which exists with one goroutine per task as well and which no
// scheduler can finish. In case (a) u descends from x, and a task can
// reach what its ancestor does later only through something outside the
// pool (a channel, a lock), or through the pool's own groups and futures
// when their work includes x itself: a future x spawned and does not wait
// for may wait for the Pool.Group x is a child of, or for x's own future.
// With a goroutine per task that finishes; run above x it cannot, since x
// is beneath it. That wait is caught (see Misuse) and panics. Other waits
// on the pool's groups and futures only see work that exists, which does
// not wait for x. Without a cycle, then, every task run above a waiting
// task finishes without it, and the wait ends once its work is done,
// whatever the number of workers.
//
// Compensation. A task the waiting task may not run (a task spawned or
// submitted elsewhere, a part of an outer fork left on its deque) it has
// taken from a queue; it lends it to a spare (sched_lend.go), a worker
// with queues of its own that runs it at the top of a fresh goroutine, and
// blocks until its wait is over: the pool keeps as many goroutines taking
// work as it has workers, and nobody runs above the blocked one. A waiting
// task that finds nothing sleeps on the idle list; new work wakes it, and
// what it cannot run it lends then. Spares have no cap, since one reached
// would leave a lent task with nobody to run it or put it back above the
// waiting task; each spare stands in for a goroutine that is blocked, so
// their number is bounded by the program's own waits and Blocks.
//
// Misuse. A wait that is a cycle (a Pool.Group's Wait from its own child,
// or from a future that child spawned and waits for) would hang, so the
// waiting task checks, before it blocks, whether its own chain reaches
// the latch it waits for, and panics if it does (cycle). Once every
// task of such a cycle waits, all their links are in place and the last
// to block sees the cycle. It also checks whether the chain of any task
// beneath it on its goroutine (core.waiting) reaches that latch: the
// wait of a descendant run above its ancestor for work that includes
// that ancestor, which could never end either. A future run above a
// waiting task that is not part of that task's wait (case (a)) holds it, so
// while it runs its latch is joined to the waiting task's (executeAbove):
// a wait that reaches the task beneath only through it (its sibling's
// future, whose task waits for the future of the task beneath) finds the
// cycle on its own chain, whichever of the two waits began first. A group
// child run so is not joined, since its latch counts its siblings too,
// which do not hold the task beneath; such a cycle through it is seen only
// if the sibling's task waits first. A Go waiting for a slot of a limited group
// waits for any one child, not all: it helps with the group's children,
// which is safe unless one of them waits for what that Go's caller does
// next (the package doc says so).

package steal

import (
	"context"
	"runtime/trace"
	"sync/atomic"

	"github.com/worksteal/steal/deque"
)

// maxRunnextStreak is how many tasks in a row a worker takes from runnext
// before it looks at its ring first. The runtime bounds the same thing by
// letting runnext inherit the time slice; we count instead.
const maxRunnextStreak = 16

// core is one worker of the pool, as the scheduler sees it: the queues a
// goroutine owns and runs tasks from (the runtime's P; Tokio's Core). The
// public Worker is a task's handle, not this. The goroutine running a core
// is its owner; only the owner touches the fields marked owner-only.
type core struct {
	// What thieves write comes first, on lines of its own: runnext and the
	// ring's head, which they CAS (the ring keeps its owner's tail on
	// another line), then the counters they bump. Next to pool or cur,
	// which the owner reads for every task, each steal would cost the
	// owner a miss.
	runnext   atomic.Pointer[Worker]
	ring      deque.Ring[Worker]
	stolenOut sharedCounter // tasks thieves took from here
	wakeups   sharedCounter // times a producer woke this worker
	_         padLine

	pool *Pool
	id   int
	// jobs holds fork-join tasks (Join's second half, Group children,
	// Futures): the owner pushes and pops at the bottom, thieves take the
	// oldest, which in divide-and-conquer code is the largest.
	jobs *deque.Deque[Worker]
	// cur is the handle of the task the owner is running now, nil between
	// tasks and while that task waits (owner only). A handle is valid only
	// while it is its worker's cur.
	cur curSlot
	// mark is the index of jobs' bottom when the current task began (owner
	// only): items at or above it were pushed by that task or by tasks run
	// above it, so they are its descendants, which it may run while it
	// waits (see "Waiting" above).
	mark uint32
	// owner is the id of the goroutine running this worker, so that a call
	// that would block (Run, Close, an outside Wait) can tell it comes from
	// inside the pool.
	owner atomic.Int64

	// Owner-private scheduling state.
	tick          uint32 // tasks run, for the 1-in-61 inject check
	runnextStreak int
	spinning      bool
	rnd           uint32 // xorshift state for victim order
	freeJoins     []*joinTask
	freeGo        []*task  // records of finished Go functions (reusable)
	freeForks     []any    // *forkTask[T, R] of any T, R
	slab          []Worker // fresh records for submissions (sched_inject_take.go)
	// waiting holds the tasks waiting on this worker's goroutine (in
	// helpUntil), the bottom one first: each one beneath runs the ones
	// above it, and cannot go on before they return.
	waiting []*task

	// running counts task starts, for the stall detector to tell whether
	// the worker is still on one task; kept only while it runs (an atomic
	// store per task is a locked instruction on amd64).
	running atomic.Uint64
	// probe is set by the stall detector at each look and cleared by the
	// worker at its next step (stepped): a long task that clears it is
	// making progress.
	probe atomic.Uint32
	// blocking is set while the worker's task is inside Worker.Block, or
	// waits after lending a task (sched_lend.go), with a spare working for it: a
	// long wait there is not a stall.
	blocking atomic.Bool
	// wake receives a token when the worker is taken off the idle list.
	wake chan struct{}
	// joinWake receives a token when a latch this worker sleeps on opens.
	joinWake chan struct{}
	// startParked is set by New, which puts the worker on the idle list
	// before its goroutine starts; loop then sleeps before it looks for work.
	startParked bool
	// quit is closed when a spare (see Block) may retire; nil for the
	// pool's own workers.
	quit chan struct{}
	// owns holds the cancellations of the tasks with a context of their
	// own running here, for the pool's context to end them (sched_ownctx.go).
	owns ownTasks

	stats    workerStats
	timeline *timeline   // nil unless WithTimeline
	watch    workerWatch // for the timeline, the execution tracer, profile labels
}

func newCore(p *Pool, id int) *core {
	return &core{
		pool: p, id: id, rnd: rand32() | 1,
		jobs:     deque.New[Worker](),
		wake:     make(chan struct{}, 1),
		joinWake: make(chan struct{}, 1),
		watch:    workerWatch{on: p.profileLabels},
	}
}

func (c *core) spawn(t *task) {
	c.stepped()
	c.stats.spawned.inc()
	if old := c.runnext.Swap(t); old != nil {
		c.putRing(old)
	}
	c.pool.wakep()
}

// putRing queues t at the tail of the ring, moving half of a full ring to
// the inject queue.
func (c *core) putRing(t *task) {
	if spill := c.ring.Put(t); spill != nil {
		c.stats.overflows.inc()
		c.pool.inject.pushSpill(spill)
	}
}

// loop is a worker goroutine: find a task, run it, repeat, until the pool
// is done (or, for a spare, until it may retire).
//
// A task that calls runtime.Goexit (t.FailNow does) ends the goroutine
// running it; nothing can stop that. The task is reported as failed
// (finish), and loop's deferred call starts a new goroutine for the same
// worker, so the pool keeps its workers.
func (c *core) loop() {
	c.owner.Store(goid())
	c.dropInheritedLabels()
	exited := false
	defer func() {
		if !exited {
			go c.loop()
			return
		}
		c.stats.flush()
		c.owns.leave() // a spare that retires leaves the pool's context
		if c.quit != nil {
			c.pool.retireSpare(c)
		} else {
			c.pool.workersDone.Done()
		}
	}()
	if c.startParked {
		// New put this worker on the idle list: a pool starts with no
		// work, so it sleeps until a producer wakes it. Looking for work
		// first made each of W workers pass over W queues before parking,
		// O(W²) at every start: seconds of CPU at 4096 workers.
		c.startParked = false
		if !c.sleep() {
			exited = true
			return
		}
	}
	for {
		t := c.findWork()
		if t == nil {
			exited = true
			return
		}
		c.execute(t)
	}
}

// execute runs one task, recovering a panic (and noting a Goexit) so that
// the worker survives it.
//
// The task runs in this frame, not in a callee: a task that waits (Join,
// Group.Wait, Future.Wait) runs other tasks beneath its own frames on the
// same goroutine, so tree recursion nests a few frames per level of the
// tree, thousands of levels deep on unbalanced trees, and the collector
// scans every frame of every worker's stack in each cycle. One frame fewer
// per level is a sixth less of that scanning for a group per node.
func (c *core) execute(t *task) {
	p := c.pool
	if p.countStarts {
		c.running.Store(c.running.Load() + 1) // owner is the only writer
	}
	timed := false
	if t.sub != subNone { // first: a timed task's context is wrapped until then
		timed = c.takeSubmitted(t)
	}
	if c.watch.on || trace.IsEnabled() {
		defer c.endWatch(c.beginWatch(t))
	}
	c.tick++
	c.stats.ran.inc()
	if c.tick%statsFlushEvery == 0 {
		c.stats.flush()
	}
	if t.own {
		if !c.startOwn(t) {
			return
		}
	} else if !t.part && (p.halted.Load() || t.ctx.Err() != nil) {
		c.skip(t, c.endedCtx(t))
		return
	}
	start := int64(-1) // for Stats.TaskTime: finish records the run of a timed task
	if timed {
		start = p.sinceStart()
	}
	// Run t as the worker's current task. finish is deferred last, so it
	// runs first: the task is counted done before its own context is
	// cancelled.
	prev, prevMark := c.cur.load(), c.mark
	t.c = c
	c.cur.store(t)
	c.mark = c.jobs.Bottom()
	returned := false
	defer c.finish(t, prev, prevMark, &returned, start)
	if t.errFn {
		if err := t.callErr(); err != nil {
			t.done.grp.fail(err) // t is a group child: errFn
		}
	} else if t.goFn {
		t.callGo()
	} else {
		t.fn(t)
	}
	returned = true
}

// endedCtx returns the context that ended before t could start: t's own,
// or else the pool's (halted: t's context hears of that a moment later).
func (c *core) endedCtx(t *task) context.Context {
	if t.ctx.Err() != nil {
		return t.ctx
	}
	return c.pool.ctx
}

// startOwn prepares a task submitted with a context of its own: it skips
// the task (and returns false) if that context or the pool's is done, and
// otherwise marks the task's context as one to make when asked for
// (makeContext): one that carries the submitter's values and deadline, is
// cancelled when either context is, and, by finish, once the task has
// returned. Making it at once cost each such task two registrations, one
// with the submitter's context, whose lock every worker running its tasks
// shares.
func (c *core) startOwn(t *task) bool {
	if t.ctx.Err() != nil {
		c.skip(t, t.ctx)
		return false
	}
	if p := c.pool; p.ctx.Err() != nil {
		c.skip(t, p.ctx)
		return false
	}
	t.lazy = lazyOwn
	return true
}

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

// worker is one worker: the queues a goroutine owns and runs tasks from.
// The goroutine running it is its owner; only the owner touches the fields
// marked owner-only.
type worker struct {
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

func newWorker(p *Pool, id int) *worker {
	return &worker{
		pool: p, id: id, rnd: rand32() | 1,
		jobs:     deque.New[Worker](),
		wake:     make(chan struct{}, 1),
		joinWake: make(chan struct{}, 1),
		watch:    workerWatch{on: p.profileLabels},
	}
}

// core returns the worker running w's task, and panics if w is not the
// handle of the task that worker is running now.
func (w *Worker) core() *worker {
	c := w.c
	if c == nil || c.cur.load() != w {
		w.misuse()
	}
	return c
}

// coreInline is core for the inline path of Join and Fork2, which reads
// only the length of the worker's deque and then calls the caller's own
// functions: it catches a handle whose task returned, and leaves the check
// that the handle is current (checkCurrent) to the path that pushes.
func (w *Worker) coreInline() *worker {
	c := w.c
	if c == nil {
		w.misuse()
	}
	return c
}

// checkCurrent panics unless w is the handle of the task c runs now.
func (w *Worker) checkCurrent(c *worker) {
	if c.cur.load() != w {
		w.misuse()
	}
}

func (w *Worker) misuse() {
	if w.c == nil {
		panic("steal: Worker used outside its task: the task that received it has returned, " +
			"or it was passed to another goroutine")
	}
	panic("steal: Worker used outside its task: from another goroutine, or while its task " +
		"waits in Join, Wait or Block's spare; each task must use the handle it received")
}

// ID returns the index of the worker running the task, from 0 to
// Workers()-1 for the pool's workers; spares (Block's, and those that run
// a submitted task a waiting task came upon: see the package doc's
// "Waiting on the pool from inside it") have IDs from Workers() up, so
// any submitted task may see one.
func (w *Worker) ID() int { return w.core().id }

// Pool returns the pool the task runs on.
func (w *Worker) Pool() *Pool { return w.core().pool }

// Context returns the task's context. It is the context of the place that
// created the task, whoever runs it:
//
//   - Submit, TrySubmit, PoolSpawn: the context passed (the pool's for nil,
//     context.Background() or context.TODO()), also cancelled when the
//     pool's is (see Shutdown), and cancelled when the task returns;
//   - Go, Pool.Run: the pool's context;
//   - Join, Fork2, For: the forking task's;
//   - Spawn, Spawn of a Future: the spawning task's, but for the
//     cancellation when that task returns: a spawned task may start after
//     its spawner has returned, and then it still runs. It is cancelled
//     when it returns itself if its spawner was submitted with a context
//     of its own;
//   - a Group child: the group's, cancelled on the group's first error.
//
// The pool's context is cancelled when Shutdown gives up waiting and after
// Close or Shutdown has finished. Long tasks should watch it.
//
// A submitted task makes its context on its first call of Context, or
// when it first forks (Join, Fork2, For, NewGroup), so that its parts see
// it too: tasks that never ask and never fork cost nothing for it. It
// costs two small allocations and a registration with the worker, and for
// a task submitted with a context of its own one with that context
// (context.WithCancelCause). A context made after both the submitter's
// context and the pool's have ended reports the submitter's cause.
func (w *Worker) Context() context.Context {
	w.core()
	w.makeContext()
	return w.ctx
}

// Spawn queues fn to run on the pool, on this worker's runnext slot, so it
// is the next task this worker runs unless another worker steals it. fn
// sees this task's context (less the cancellation when this task returns:
// see Context). Only the task that received w may call it.
// Spawn never blocks, not even when WithMaxQueued is set, and works on a
// closed pool: a pool drains everything its running tasks spawn before it
// stops. If the context is done by the time fn would start, fn is skipped
// and counted in Stats.Skipped.
//
// Cost: one atomic swap, a 48-byte record from the worker's slab (one
// allocation per 10 spawns), and a wake-up check that is two atomic loads
// when no worker is idle; fn's closure is the caller's.
func (w *Worker) Spawn(fn func(w *Worker)) {
	if fn == nil {
		nilFunc("Worker.Spawn")
	}
	c := w.core()
	t := c.newRecord()
	t.fn = fn
	t.ctx, t.own = w.spawnCtx()
	c.spawn(t)
}

func (c *worker) spawn(t *task) {
	c.stepped()
	c.stats.spawned.inc()
	if old := c.runnext.Swap(t); old != nil {
		c.putRing(old)
	}
	c.pool.wakep()
}

// putRing queues t at the tail of the ring, moving half of a full ring to
// the inject queue.
func (c *worker) putRing(t *task) {
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
func (c *worker) loop() {
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
func (c *worker) execute(t *task) {
	p := c.pool
	if p.countStarts {
		c.running.Store(c.running.Load() + 1) // owner is the only writer
	}
	if t.sub != subNone { // first: a timed task's context is wrapped until then
		c.takeSubmitted(t)
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
	// Run t as the worker's current task. finish is deferred last, so it
	// runs first: the task is counted done before its own context is
	// cancelled.
	prev := c.cur.load()
	t.c = c
	c.cur.store(t)
	returned := false
	defer c.finish(t, prev, &returned)
	if t.errFn {
		if err := t.callErr(); err != nil {
			t.done.group.fail(err)
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
func (c *worker) endedCtx(t *task) context.Context {
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
// shares: Submit with a cancellable context took about 5x the time of
// Submit with context.Background() (BenchmarkSubmitProducers/p1/steal-ctx).
func (c *worker) startOwn(t *task) bool {
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

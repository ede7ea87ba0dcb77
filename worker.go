package steal

import (
	"context"
	"sync/atomic"

	"github.com/worksteal/steal/deque"
)

// maxRunnextStreak is how many tasks in a row a worker takes from runnext
// before it looks at its ring first. The runtime bounds the same thing by
// letting runnext inherit the time slice; we count instead.
const maxRunnextStreak = 16

// Worker is the handle a task receives: the worker goroutine running it. A
// task uses it to spawn more tasks onto the same worker and to read its
// context. A *Worker is valid only inside the task it was passed to, like a
// *testing.T; do not keep it or pass it to another goroutine.
type Worker struct {
	pool *Pool
	id   int

	runnext atomic.Pointer[task]
	ring    deque.Ring[task]
	// jobs holds fork-join tasks (Join's second half, Group children,
	// Futures): the owner pushes and pops at the bottom, thieves take the
	// oldest, which in divide-and-conquer code is the largest.
	jobs *deque.Deque[task]
	// ctx is the context of the task running now (a group child sees its
	// group's); owner only.
	ctx context.Context

	// Owner-private scheduling state.
	tick          uint32 // tasks run, for the 1-in-61 inject check
	runnextStreak int
	spinning      bool
	rnd           uint32 // xorshift state for victim order
	freeJoins     []*joinTask
	freeForks     []any // *forkTask[T, R] of any T, R

	// running counts task starts, for the stall detector to tell whether
	// the worker is still on one task; kept only while it runs (an atomic
	// store per task is a locked instruction on amd64).
	running atomic.Uint64
	// probe is set by the stall detector at each look and cleared by the
	// worker at its next step (stepped): a long task that clears it is
	// making progress.
	probe atomic.Uint32
	// wake receives a token when the worker is taken off the idle list.
	wake chan struct{}
	// joinWake receives a token when a latch this worker sleeps on opens.
	joinWake chan struct{}
	// reclaim is non-nil while a spare runs this worker during Block; it is
	// closed when the blocked goroutine wants the worker back.
	reclaim chan struct{}

	stats    workerStats
	timeline *timeline // nil unless WithTimeline
}

// ID returns the worker's index in the pool, from 0 to Workers()-1.
// Only the task that received w may call it.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// Context returns the context of the running task: for a Group child, the
// group's context, cancelled on the group's first error; otherwise the
// pool's, cancelled when Shutdown gives up waiting and after Close or
// Shutdown has finished. Long tasks should watch it.
func (w *Worker) Context() context.Context { return w.ctx }

// Spawn queues fn to run on the pool, on this worker's runnext slot, so it
// is the next task this worker runs unless another worker steals it. Only
// the task that received w may call it. Spawn never blocks, not even when
// WithMaxQueued is set, and works on a closed pool: a pool drains everything
// its running tasks spawn before it stops.
//
// Cost: one atomic swap and one 64-byte allocation; a wake-up check that is
// two atomic loads when no worker is idle; about 90 ns a task all told on
// the machine of the package doc's # Cost.
func (w *Worker) Spawn(fn func(w *Worker)) {
	w.spawn(&task{fn: fn})
}

func (w *Worker) spawn(t *task) {
	w.stepped()
	w.stats.spawned.inc()
	if old := w.runnext.Swap(t); old != nil {
		w.putRing(old)
	}
	w.pool.wakep()
}

// putRing queues t at the tail of the ring, moving half of a full ring to
// the inject queue.
func (w *Worker) putRing(t *task) {
	if spill := w.ring.Put(t); spill != nil {
		w.stats.overflows.inc()
		w.pool.inject.pushBatch(spill)
	}
}

// loop is the worker goroutine: find a task, run it, repeat, until the pool
// is done.
func (w *Worker) loop() {
	defer w.pool.workersDone.Done()
	for {
		t := w.findWork()
		if t == nil {
			w.stats.flush()
			return
		}
		w.execute(t)
	}
}

// execute runs one task, recovering a panic so the worker survives it.
func (w *Worker) execute(t *task) {
	if w.pool.countStarts {
		w.running.Store(w.running.Load() + 1) // owner is the only writer
	}
	if w.timeline != nil {
		w.timeline.add(evTaskStart, 0, 0)
		defer w.timeline.add(evTaskEnd, 0, 0)
	}
	w.tick++
	w.stats.ran.inc()
	if w.tick%statsFlushEvery == 0 {
		w.stats.flush()
	}
	p := w.pool
	if t.external && p.maxQueued > 0 {
		p.releaseQueued()
	}
	if t.done != nil {
		w.runJob(t)
		return
	}
	// A plain task sees the pool's context, also when it runs while a group
	// child on this worker waits and helps.
	outer := w.ctx
	w.ctx = p.ctx
	defer p.finishTask(w, outer)
	t.fn(w)
}

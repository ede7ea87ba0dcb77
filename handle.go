package steal

import (
	"context"
	"unsafe"
)

// Worker is the handle a task receives. A task uses it to spawn more tasks
// onto the worker running it, to fork and join (Join, Fork2, For, Spawn,
// NewGroup), to read its context, and to block (Block).
//
// Each task gets a handle of its own, valid only while that task runs: like
// a *testing.T, it must not be kept after the task returns or used from
// another goroutine. Misuse is caught cheaply and panics with a message that
// says so: a handle used after its task returned, or while its task waits
// for other work (in Join, Group.Wait, Future.Wait), always; a handle used
// from another goroutine while its task runs cannot always be told apart
// from its own task and may instead be reported by the race detector.
//
// A task record is its own handle, so a handle costs nothing extra: a
// record is 48 bytes, taken for each Spawn and Group.Go from the worker's
// slab, which it allocates 10 records at a time (a group carries its first
// two children's). A task submitted from outside (Submit, TrySubmit, Go)
// waits in the inject queue as a 16-byte entry and gets its record from
// the slab of the worker that picks it up; Join, Fork2 and For recycle
// theirs, and so do Pool.Go's functions, which never see a handle. A
// record that has been a handle is never used for a second task, so a
// kept handle is always refused.
type Worker struct {
	c  *core // the worker running this task; nil unless it runs
	fn func(*Worker)
	// ctx is what the task sees as Context: the context of the place that
	// created it, whoever runs it.
	ctx  context.Context
	done *latch // counted down when the task finishes; nil for plain tasks
	// external: submitted from outside the pool; counts against WithMaxQueued.
	external bool
	// part: a piece of the task that forked it (Join, Fork2, For). It runs
	// even if its context is done, since its forker needs its result.
	part bool
	// own: ctx is a submitter's own context, not yet joined with the pool's
	// cancellation (Submit).
	own bool
	// goFn: fn holds a func() (Go), not a func(*Worker); see callGo.
	goFn bool
	// errFn: fn holds a group child's func(*Worker) error; see setErrFn.
	errFn bool
	// sub: queued by submitEntry (subQueued), and maybe timed (subSampled:
	// ctx is then a *waitStamp until a worker picks the task up).
	sub uint8
	// lazy: whether Context makes the task a context of its own, or has
	// (sched_ctx.go).
	lazy uint8
	// handed: the record was handed to user code as a handle, though its
	// task is a Go function (Pool.Run called from inside it), so it is
	// never reused (see reusable).
	handed bool
}

// setErrFn stores a group child's function in fn. Every func value is one
// pointer, so the record keeps one function field for its three kinds
// (func(*Worker), func() for Go, func(*Worker) error), which keeps it at
// 48 bytes: records are allocated for every child and every submission.
func (t *task) setErrFn(fn func(*Worker) error) {
	*(*func(*Worker) error)(unsafe.Pointer(&t.fn)) = fn
	t.errFn = true
}

// callErr calls t's function as the func(*Worker) error of setErrFn.
func (t *task) callErr() error {
	return (*(*func(*Worker) error)(unsafe.Pointer(&t.fn)))(t)
}

// callGo calls t's function as the func() that Go queued.
func (t *task) callGo() {
	(*(*func())(unsafe.Pointer(&t.fn)))()
}

// task is the scheduler's name for a Worker: the unit in every queue.
type task = Worker

// core returns the worker running w's task, and panics if w is not the
// handle of the task that worker is running now.
func (w *Worker) core() *core {
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
func (w *Worker) coreInline() *core {
	c := w.c
	if c == nil {
		w.misuse()
	}
	return c
}

// checkCurrent panics unless w is the handle of the task c runs now.
func (w *Worker) checkCurrent(c *core) {
	if c.cur.load() != w {
		w.misuse()
	}
}

// nilWorker panics for a nil *Worker passed to call, which would
// otherwise fail with a nil dereference deep in the scheduler that names
// neither the call nor the mistake.
func nilWorker(call string) {
	panic("steal: nil *Worker passed to " + call + "; pass the handle your task received")
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
// a task a waiting task came upon but may not run: see the package doc's
// "Waiting inside the pool") have IDs from Workers() up, so
// any task may see one.
func (w *Worker) ID() int {
	if w == nil {
		nilWorker("Worker.ID")
	}
	return w.core().id
}

// Pool returns the pool the task runs on.
func (w *Worker) Pool() *Pool {
	if w == nil {
		nilWorker("Worker.Pool")
	}
	return w.core().pool
}

// Context returns the task's context. It is the context of the place that
// created the task, whoever runs it:
//
//   - Submit, TrySubmit, PoolSpawn: the context passed (the pool's for nil,
//     context.Background() or context.TODO()), also cancelled when the
//     pool's is (see Shutdown), and cancelled when the task returns;
//   - Go, Pool.Run: the pool's context;
//   - Join, Fork2, For: the forking task's;
//   - Spawn, Spawn of a Future: the spawning task's, but for the
//     cancellations of the scopes it was spawned in (the spawner's return,
//     a group round's end or first error, a map's): a spawned task may
//     start after they have ended, and then it still runs (see the package
//     doc's "Spawned tasks run"). It is cancelled when it returns itself
//     if its spawner was submitted with a context of its own;
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
	if w == nil {
		nilWorker("Worker.Context")
	}
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
// stops. fn still runs, even after this task, or the group or map it
// spawned fn from, has ended (see the package doc's "Spawned tasks run").
// If a context a user cancels (a submitter's, or the pool's once Shutdown
// gives up) is done by the time fn would start, fn is skipped, counted in
// Stats.Skipped and in the *SkippedError that Close returns.
//
// Cost: one atomic swap, a 48-byte record from the worker's slab (one
// allocation per 10 spawns), and a wake-up check that is two atomic loads
// when no worker is idle; fn's closure is the caller's.
func (w *Worker) Spawn(fn func(w *Worker)) {
	if w == nil {
		nilWorker("Worker.Spawn")
	}
	if fn == nil {
		nilFunc("Worker.Spawn")
	}
	c := w.core()
	t := c.newRecord()
	t.fn = fn
	t.ctx, t.own = w.spawnCtx()
	c.spawn(t)
}

// Block runs fn, which may block (I/O, a lock, cgo), without taking a worker
// away from the pool: while fn runs, a spare worker, with queues of its own,
// steals and runs tasks in this worker's place, so the pool keeps Workers()
// workers running. This is the user-space twin of the runtime handing off a
// P when a goroutine enters a system call.
//
// Block returns as soon as fn returns: it never waits for the spare. The
// spare finishes the task it is running and whatever that task queued on
// it, then retires, so for a moment the pool may run one task more than it
// has workers. Block thus adds no wait that the program without it would
// not have.
//
// It must be called by the task that received w. fn may use w (its tasks
// stay on this worker, stealable by the spare and everyone else). A Block
// inside fn (or inside any task this worker runs while fn waits in Join or
// Wait) starts no second spare: the one running already stands in for
// this worker. Spares are not capped: each stands in for a goroutine that
// is blocked, and a cap reached could leave queued work that the blocked
// goroutines wait for with nobody to run it. A panic or Goexit in fn goes
// on unchanged after the spare is released.
func (w *Worker) Block(fn func()) {
	if w == nil {
		nilWorker("Worker.Block")
	}
	if fn == nil {
		nilFunc("Worker.Block")
	}
	c := w.core()
	if c.blocking.Load() { // a spare already stands in for this worker
		fn()
		return
	}
	s := c.pool.spares.start(c.pool, nil)
	c.blocking.Store(true)
	defer func() {
		c.blocking.Store(false)
		close(s.quit) // the spare retires once its own queues are empty
	}()
	fn()
}

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
	c  *worker // the worker running this task; nil unless it runs
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

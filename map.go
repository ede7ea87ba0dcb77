package steal

import (
	"context"
	"errors"
	"sync/atomic"
	"unsafe"
)

// Map calls f(w, x) for every element x of in, in parallel, and returns
// the results in the order of in. It must be called by the task that
// received w. Every call sees that task's context, and every call is made,
// even once the context is done: like For, Map is part of the task.
//
// Map splits in as ForRange does, lazily, with no grain size: with no idle
// worker it is a loop over in; idle workers steal halves of what is left.
// A task waiting for a stolen half runs other tasks, so Map nests to any
// depth, even on one worker. Map does not bound how many calls run at
// once: each call that blocks in Worker.Block lets a spare take more of
// in; MapLimit and MapErrLimit do.
//
// A panic in f stops the part of in that was running it; the other parts
// still run, and the first panic is re-raised in the caller as a
// *PanicError once they have all finished.
//
// Cost: the result slice and ForRange's: about a function call per
// element when nobody steals, and a few tasks per thief.
func Map[T, R any](w *Worker, in []T, f func(w *Worker, x T) R) []R {
	if w == nil {
		nilWorker("Map")
	}
	if f == nil {
		nilFunc("Map")
	}
	out := make([]R, len(in))
	mapSlice(w, in, out, plainBody(f))
	return out
}

// MapErr is Map for functions that can fail. The first call to return an
// error cancels the context the other calls see (w.Context() inside f,
// derived from the calling task's), and the calls that have not started
// by then are not made. MapErr returns once every call that started has
// returned, with the results in the order of in: the zero value for an
// element whose call failed or was not made.
//
// The error is nil if every call was made and succeeded. If a call failed,
// it is a *MapError carrying that error, its element's index and how many
// calls were not made; with calls not made, it also matches ErrSkipped.
// If no call failed but the calling task's context ended before every
// call was made, it is a *SkippedError counting the calls not made. A
// panic in f cancels the rest likewise, and MapErr returns it, as a
// *PanicError, once every call that started has returned: MapErr returns
// an error, so it does not re-raise (see the package doc's "Panics and
// Goexit").
//
// Tasks that f spawns do not see that context: they run even if they
// start after MapErr has returned (see the package doc's "Spawned tasks
// run").
//
// Cost: Map's, plus a derived context per MapErr, and a check of that
// context (an atomic load) before each call.
func MapErr[T, R any](w *Worker, in []T, f func(w *Worker, x T) (R, error)) ([]R, error) {
	if w == nil {
		nilWorker("MapErr")
	}
	if f == nil {
		nilFunc("MapErr")
	}
	out := make([]R, len(in))
	m := newMapRun(w)
	defer m.cancel(nil)
	if pe := asPartErr(w, newScope(w, m.ctx), func(w *Worker) { mapSlice(w, in, out, errBody(m, f)) }); pe != nil {
		return out, pe
	}
	return out, m.err()
}

// PoolMap is Map for callers outside the pool; it is a function, not a
// method of Pool, only because Go methods cannot have type parameters.
// The calls see ctx (also cancelled when the pool's context is), and all
// of them run once the map has started. It returns ErrClosed, running
// nothing, if the pool is closed, and a *SkippedError if ctx or the pool's
// context was done before the map started; a panic in f is returned as a
// *PanicError, as by Pool.Run. Called from a task of p it maps on the calling worker, as
// part of that task, instead of waiting for the pool; tasks that f spawns
// then see ctx and run even if they start after PoolMap has returned (see
// the package doc's "Spawned tasks run").
func PoolMap[T, R any](ctx context.Context, p *Pool, in []T, f func(w *Worker, x T) R) ([]R, error) {
	p.made("PoolMap")
	if f == nil {
		nilFunc("PoolMap")
	}
	var out []R
	err := p.runCtx(ctx, func(w *Worker) { out = Map(w, in, f) })
	return out, err
}

// PoolMapErr is MapErr for callers outside the pool, started as PoolMap
// is. The calls see a context derived from ctx, cancelled by the first
// error; ctx ending stops the calls not yet made as the task's context
// does for MapErr.
func PoolMapErr[T, R any](ctx context.Context, p *Pool, in []T, f func(w *Worker, x T) (R, error)) ([]R, error) {
	p.made("PoolMapErr")
	if f == nil {
		nilFunc("PoolMapErr")
	}
	var out []R
	var merr error
	if err := p.runCtx(ctx, func(w *Worker) { out, merr = MapErr(w, in, f) }); err != nil {
		return nil, err
	}
	return out, merr
}

// mapBody maps in to out, a piece of the whole starting at index base.
type mapBody[T, R any] func(w *Worker, in []T, out []R, base int)

// mapSlice maps in to out, split as ForRange splits.
func mapSlice[T, R any](w *Worker, in []T, out []R, body mapBody[T, R]) {
	ForRange(w, 0, len(in), func(w *Worker, lo, hi int) { body(w, in[lo:hi], out[lo:hi], lo) })
}

func plainBody[T, R any](f func(*Worker, T) R) mapBody[T, R] {
	return func(w *Worker, in []T, out []R, _ int) {
		for k := range in {
			out[k] = f(w, in[k])
		}
	}
}

// errBody is the body of the Err variants: it makes no call once m's
// context is done, counting the calls it leaves out, and cancels that
// context on the first error or panic.
func errBody[T, R any](m *mapRun, f func(*Worker, T) (R, error)) mapBody[T, R] {
	return func(w *Worker, in []T, out []R, base int) {
		finished := false
		defer func() {
			if !finished {
				m.cancel(errItemPanicked)
			}
		}()
		for k := range in {
			if m.ctx.Err() != nil {
				m.skipped.Add(int64(len(in) - k))
				break
			}
			r, err := f(w, in[k])
			if err != nil {
				m.fail(base+k, err)
				continue
			}
			out[k] = r
		}
		finished = true
	}
}

// errItemPanicked is the cause of a map's context when a call panicked.
var errItemPanicked = errors.New("steal: a call of the mapped function panicked")

// mapRun is the shared state of one MapErr or MapSeqErr.
type mapRun struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	first   atomic.Pointer[MapError]
	skipped atomic.Int64
}

func newMapRun(w *Worker) *mapRun {
	m := &mapRun{}
	m.ctx, m.cancel = context.WithCancelCause(w.Context())
	return m
}

// fail records the first failed call and cancels the rest.
func (m *mapRun) fail(i int, err error) {
	if m.first.CompareAndSwap(nil, &MapError{Index: i, Err: err}) {
		m.cancel(err)
	}
}

// err is the map's error once every part has finished.
func (m *mapRun) err() error {
	n := int(m.skipped.Load())
	if e := m.first.Load(); e != nil {
		e.Skipped = n
		return e
	}
	if n > 0 {
		return &SkippedError{Count: n, Cause: context.Cause(m.ctx)}
	}
	return nil
}

// asPartErr is asPart for the calls that return an error: a panic in fn
// (a part of it re-raises a thief's) is returned as a *PanicError.
func asPartErr(w *Worker, ctx context.Context, fn func(*Worker)) (pe *PanicError) {
	defer func() {
		if r := recover(); r != nil {
			pe = newPanicError(r, w.c.id)
		}
	}()
	asPart(w, ctx, fn)
	return nil
}

// asPart runs fn on the calling worker as a part of the task whose handle
// is w, as Join runs its inline half, but with a handle of its own whose
// Context is ctx. Groups made inside fn report skipped children to w's
// group, as those of any part do.
func asPart(w *Worker, ctx context.Context, fn func(*Worker)) {
	c := w.core()
	t := &joinTask{}
	t.ctx, t.part, t.done = ctx, true, &t.latch
	t.latch.grp = w.group()
	t.latch.joiner = unsafe.Pointer(w.done) // before anything fn forks can see it
	t.c = c
	c.cur.store(&t.task)
	defer func() {
		t.c = nil
		c.cur.store(w)
	}()
	fn(&t.task)
}

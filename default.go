package steal

import (
	"context"
	"log/slog"
	"sync"
)

var (
	defaultOnce sync.Once
	defaultPool *Pool
)

// Default returns a pool shared by the whole program, started on first use
// with runtime.GOMAXPROCS(0) workers and never closed. It is for quick use
// and for libraries that should not own a pool; programs that care about
// shutdown create their own with New.
//
// Since nobody closes it to collect them, Default keeps no panics: it logs
// each panic recovered from a plain task (Submit, TrySubmit, Go,
// Worker.Spawn) as one line at level Error through slog.Default(), with the
// message "steal: task panicked" and the attributes worker, value and stack,
// and then forgets it. Default().SetPanicHandler replaces the logging.
func Default() *Pool {
	defaultOnce.Do(func() { defaultPool = New(WithPanicHandler(logPanic)) })
	return defaultPool
}

// logPanic is Default's panic handler. It looks slog.Default() up on every
// call, so a program's slog.SetDefault applies whenever it happens.
func logPanic(e *PanicError) {
	slog.Error("steal: task panicked", "worker", e.Worker, "value", e.Value, "stack", string(e.Stack))
}

// Run runs fn as a task on the pool and returns when it has finished, from
// outside the pool. A panic in fn is re-raised in the caller as a
// *PanicError. Run returns ErrClosed, without running fn, if the pool is
// closed. It is the door from ordinary Go code into fork-join: inside fn,
// use Join, For, Spawn and NewGroup with the worker handle.
func (p *Pool) Run(fn func(w *Worker)) error {
	f := &joinTask{}
	f.done = &f.latch
	f.latch.pending.Store(1)
	f.fn = fn
	if err := p.submitWait(context.Background(), &f.task); err != nil {
		return err
	}
	f.latch.block()
	if f.perr != nil {
		panic(f.perr)
	}
	return nil
}

// Join is Join for callers outside the pool: it runs a and b on the pool and
// returns when both are done. It returns ErrClosed if the pool is closed.
func (p *Pool) Join(a, b func(w *Worker)) error {
	return p.Run(func(w *Worker) { Join(w, a, b) })
}

// For is For for callers outside the pool. It returns ErrClosed if the pool
// is closed.
func (p *Pool) For(lo, hi int, body func(w *Worker, i int)) error {
	return p.Run(func(w *Worker) { For(w, lo, hi, body) })
}

// ForRange is ForRange for callers outside the pool. It returns ErrClosed if
// the pool is closed.
func (p *Pool) ForRange(lo, hi int, body func(w *Worker, lo, hi int)) error {
	return p.Run(func(w *Worker) { ForRange(w, lo, hi, body) })
}

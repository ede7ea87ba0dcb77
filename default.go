package steal

import (
	"log/slog"
	"sync"
)

var (
	defaultOnce sync.Once
	defaultPool *Pool
)

// Default returns a pool shared by the whole program, started on first use
// with runtime.GOMAXPROCS(0) workers and never closed: its Close and
// Shutdown change nothing and return ErrDefaultPool, since one user closing
// it would break every other. It is for quick use and for libraries that
// should not own a pool; programs that care about shutdown create their
// own with New.
//
// Since nobody closes it to collect them, Default keeps no panics: it logs
// each panic recovered from a plain task (Submit, TrySubmit, Go,
// Worker.Spawn) as one line at level Error through slog.Default(), with the
// message "steal: task panicked" and the attributes worker, value and stack,
// and then forgets it. Default().SetPanicHandler replaces the logging.
func Default() *Pool {
	defaultOnce.Do(func() {
		defaultPool = New(WithPanicHandler(logPanic))
		defaultPool.shared = true
	})
	return defaultPool
}

// logPanic is Default's panic handler. It looks slog.Default() up on every
// call, so a program's slog.SetDefault applies whenever it happens.
func logPanic(e *PanicError) {
	slog.Error("steal: task panicked", "worker", e.Worker, "value", e.Value, "stack", string(e.Stack))
}

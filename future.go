package steal

// Future is the result of a task started with Spawn, to be collected with
// Wait.
type Future[T any] struct {
	j   *joinTask
	p   *Pool
	val T
}

// Spawn starts fn as a fork-join task on w's deque and returns its future.
// It must be called by the task that received w. fn sees that task's
// context and may run on any worker; if nobody waits for it, it still runs,
// unless the context is done before it starts: then it is skipped, and
// Wait reports a *SkippedError.
//
// Cost: one allocation for the future and its task, plus fn's closure.
func Spawn[T any](w *Worker, fn func(w *Worker) T) *Future[T] {
	c := w.core()
	f := &Future[T]{j: &joinTask{}, p: c.pool}
	f.j.done = &f.j.latch
	f.j.ctx = w.ctx
	f.j.latch.pending.Store(1)
	f.j.fn = func(w *Worker) { f.val = fn(w) }
	c.jobs.Push(&f.j.task)
	c.pool.wakep()
	return f
}

// Wait returns fn's result once it has run. If fn panicked or called
// runtime.Goexit, Wait returns the zero value and a *PanicError; if fn was
// skipped because its context ended first, a *SkippedError.
//
// Called from a task with that task's worker, Wait helps run other tasks
// while it waits (any task may wait for any future). Called with a nil
// worker it blocks, from outside the pool; from inside a task of the same
// pool it then helps instead, so it never waits on a worker it holds.
// Wait may be called any number of times, from any goroutine.
func (f *Future[T]) Wait(w *Worker) (T, error) {
	if w != nil {
		w.core().waitFor(&f.j.latch)
	} else {
		f.j.latch.await(f.p)
	}
	if err := f.j.latch.err; err != nil {
		var zero T
		return zero, err
	}
	return f.val, nil
}

// Done reports whether fn has finished (or was skipped). Any goroutine.
func (f *Future[T]) Done() bool { return f.j.latch.open() }

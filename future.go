package steal

// Future is the result of a task started with Spawn, to be collected with
// Wait.
type Future[T any] struct {
	j   *joinTask
	val T
}

// Spawn starts fn as a fork-join task on w's deque and returns its future.
// It must be called by the task that received w. fn may run on any worker;
// if nobody waits for it, it still runs.
//
// Cost: one allocation for the future and its task, plus fn's closure.
func Spawn[T any](w *Worker, fn func(w *Worker) T) *Future[T] {
	f := &Future[T]{j: &joinTask{}}
	f.j.done = &f.j.latch
	f.j.latch.pending.Store(1)
	f.j.fn = func(w *Worker) { f.val = fn(w) }
	w.jobs.Push(&f.j.task)
	w.pool.wakep()
	return f
}

// Wait returns fn's result once it has run. If fn panicked, Wait returns the
// zero value and a *PanicError. Called from a task with that task's worker,
// it helps run other tasks while it waits (any task may wait for any
// future); called with a nil worker, from outside the pool, it blocks.
// Wait may be called any number of times.
func (f *Future[T]) Wait(w *Worker) (T, error) {
	if w != nil {
		w.waitFor(&f.j.latch)
	} else {
		f.j.latch.block()
	}
	if f.j.perr != nil {
		var zero T
		return zero, f.j.perr
	}
	return f.val, nil
}

// Done reports whether fn has finished. Any goroutine.
func (f *Future[T]) Done() bool { return f.j.latch.open() }

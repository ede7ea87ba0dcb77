package steal

import (
	"context"
	"unsafe"
)

// Future is the result of a task started with Spawn (inside a task) or
// PoolSpawn (outside), to be collected with Wait or WaitContext, or
// watched with Done in a select. The zero Future stands for no work: its
// methods panic.
type Future[T any] struct {
	futureHead
	p   *Pool
	fn  func(*Worker) T // until it runs
	val T
}

// futureHead is the start of every Future, whatever its T: the task and
// latch, and the future itself as a runner, so that one function that
// knows no T (runFutureTask) can run any future's task.
type futureHead struct {
	j    joinTask
	self interface{ run(w *Worker) }
}

// newFuture returns a future for fn whose record is ready to queue
// (pending, with no context yet). It is one allocation: the future, its
// task and its latch together, with a task function shared by all.
func newFuture[T any](p *Pool, fn func(*Worker) T) *Future[T] {
	f := &Future[T]{p: p, fn: fn}
	f.self = f
	f.j.done = &f.j.latch
	f.j.latch.pending.Store(1)
	f.j.fn = runFutureTask
	return f
}

// run calls fn and keeps its value. Only the future's task calls it.
func (f *Future[T]) run(w *Worker) {
	fn := f.fn
	f.fn = nil // let the closure go once it has run
	f.val = fn(w)
}

// runFutureTask is the task function of every future. A function value
// that knew T would be a closure, allocated per future; this one finds
// the future from the latch the record counts down (w.done), which is the
// future's own: a future starts with its futureHead, so the head lies the
// latch's offset in a joinTask before the latch. TestFutureLayout pins
// that layout.
func runFutureTask(w *Worker) {
	h := (*futureHead)(unsafe.Add(unsafe.Pointer(w.done), -int(unsafe.Offsetof(joinTask{}.latch))))
	h.self.run(w)
}

// Spawn starts fn as a fork-join task on w's deque and returns its future.
// It must be called by the task that received w. fn sees that task's
// context (less the cancellations of the scopes it is spawned in: see
// Worker.Context) and may run on any worker; if nobody waits for it, it
// still runs, even after that task, or the group or map it was spawned
// from, has ended (see the package doc's "Spawned tasks run"), unless a
// context a user cancels is done before it starts: then it is skipped,
// and Wait reports a *SkippedError (Close does, if nobody has waited).
//
// Cost: one allocation (the future, its task record and its latch
// together: 144 bytes for an 8-byte T) plus what fn's closure costs the
// caller.
func Spawn[T any](w *Worker, fn func(w *Worker) T) *Future[T] {
	if w == nil {
		nilWorker("Spawn")
	}
	if fn == nil {
		nilFunc("Spawn")
	}
	c := w.core()
	f := newFuture(c.pool, fn)
	f.j.ctx, f.j.own = w.spawnCtx()
	c.stats.spawned.inc()
	c.jobs.Push(&f.j.task)
	c.pool.wakep()
	return f
}

// PoolSpawn is Spawn for callers outside the pool: it queues fn through
// the pool's inject queue, as Submit does, and returns its future. It is
// a function, not a method of Pool, only because Go methods cannot have
// type parameters. fn sees ctx, joined with the pool's context, and is
// skipped if either is done before fn starts (Wait then reports a
// *SkippedError); a nil ctx, context.Background() or context.TODO() means
// the pool's context. PoolSpawn blocks as Submit does while a
// WithMaxQueued backlog is full, returning ctx.Err() if ctx ends first,
// and returns ErrClosed, queueing nothing, once Close or Shutdown has
// begun. It may be called from any goroutine, tasks included.
//
// Cost: Submit's, plus the future and fn's closure.
func PoolSpawn[T any](ctx context.Context, p *Pool, fn func(w *Worker) T) (*Future[T], error) {
	p.made("PoolSpawn")
	if fn == nil {
		nilFunc("PoolSpawn")
	}
	f := newFuture(p, fn)
	f.j.ctx = p.ctx
	if ctx != nil && ctx != context.Background() && ctx != context.TODO() {
		f.j.ctx, f.j.own = ctx, true
	} else {
		ctx = context.Background()
		f.j.lazy = lazyMay // as Submit's: a context of its own once asked for
	}
	if err := p.submitWait(ctx, &f.j.task); err != nil {
		return nil, err
	}
	return f, nil
}

// TryPoolSpawn is PoolSpawn without waiting: it returns ErrBacklogFull,
// queueing nothing, instead of blocking when WithMaxQueued tasks are
// already waiting for a worker to pick them up, and ErrClosed once Close
// or Shutdown has begun, backlog full or not. fn sees the pool's context,
// as with PoolSpawn and a nil ctx, and Wait reports a *SkippedError if
// that is done before fn starts. Any goroutine may call it, tasks included
// (TrySubmit's twin for a result: a task that must not block on a full
// backlog).
//
// Cost: TrySubmit's, plus the future and fn's closure.
func TryPoolSpawn[T any](p *Pool, fn func(w *Worker) T) (*Future[T], error) {
	p.made("TryPoolSpawn")
	if fn == nil {
		nilFunc("TryPoolSpawn")
	}
	f := newFuture(p, fn)
	f.j.ctx = p.ctx
	f.j.lazy = lazyMay // as Submit's: a context of its own once asked for
	if err := p.submitTask(&f.j.task, false); err != nil {
		return nil, err
	}
	return f, nil
}

// Wait returns fn's result once it has run. If fn panicked or called
// runtime.Goexit, Wait returns the zero value and a *PanicError (which
// Close then no longer reports; see the package doc's "Panics and
// Goexit" for a future nobody waits for); if fn was
// skipped because its context ended first, a *SkippedError.
//
// Called from a task with that task's worker, Wait helps run the tasks of
// the work it waits for while it waits. Any task may wait for any future
// (see the package doc's "Waiting inside the pool").
// Called with a nil worker it blocks, from outside the pool; from inside a
// task of the same pool it then helps instead, so it never waits on a
// worker it holds.
// Wait may be called any number of times, from any goroutine.
func (f *Future[T]) Wait(w *Worker) (T, error) {
	f.made("Wait")
	if w != nil {
		w.core().waitFor(&f.j.latch)
	} else {
		f.j.latch.await(f.p)
	}
	return f.result()
}

// Ready reports whether fn has finished or been skipped, so that Wait
// would return at once. Any goroutine; it never blocks.
func (f *Future[T]) Ready() bool {
	f.made("Ready")
	return f.j.latch.open()
}

// Done returns a channel that is closed once fn has finished or been
// skipped, for use in a select; Wait or WaitContext then return fn's
// result at once. Any goroutine may call it, any number of times.
//
// Cost: Spawn makes no channel; the first Done (or blocking Wait) on an
// unfinished future makes one, and the task that finishes fn then takes a
// lock to close it. Done on a finished future returns a channel closed
// once for the whole program.
//
// A task should not block on Done in a select: that holds its worker.
// Inside the pool, wait with Wait(w), which runs other tasks meanwhile.
func (f *Future[T]) Done() <-chan struct{} {
	f.made("Done")
	return f.j.latch.doneChan()
}

// WaitContext is Wait(nil) that gives up when ctx is done: it returns fn's
// result once fn has finished or been skipped, or the zero value and
// ctx.Err() if ctx is done first (fn goes on, unless it watches a context
// that ctx's end also cancels). If both have happened, fn's result wins.
// A nil ctx means context.Background().
//
// Called from a task of the same pool, WaitContext runs other tasks while
// it waits, like Wait, and stops waiting when ctx is done; it notices that
// between two of those tasks, so it may return as late as the end of the
// task it is running then (and with fn's result, if fn finished by then).
func (f *Future[T]) WaitContext(ctx context.Context) (T, error) {
	f.made("WaitContext")
	if ctx == nil {
		ctx = context.Background()
	}
	l := &f.j.latch
	if !l.open() {
		if c := f.p.callerCore(); c != nil {
			c.waitForCtx(l, ctx)
		} else {
			select {
			case <-l.doneChan():
			case <-ctx.Done():
			}
		}
		if !l.open() {
			var zero T
			return zero, ctx.Err()
		}
	}
	return f.result()
}

// made panics on a Future that Spawn, PoolSpawn or TryPoolSpawn did not
// make: its zero value stands for no work, and Ready and Wait would
// report a success that never happened.
func (f *Future[T]) made(call string) {
	if f == nil || f.self == nil {
		panic("steal: Future." + call + " on a Future that no Spawn made (its zero value and nil stand for no work); " +
			"get futures from Spawn, PoolSpawn or TryPoolSpawn")
	}
}

// result returns fn's result, or the error it failed with. A panic or skip
// it returns is the waiter's: Close no longer reports it (claimFuture).
func (f *Future[T]) result() (T, error) {
	if err := f.j.latch.err; err != nil {
		switch err.(type) {
		case *PanicError, *SkippedError:
			f.p.panics.claimFuture(&f.j.latch)
		}
		var zero T
		return zero, err
	}
	return f.val, nil
}

// isFuture reports whether t is a future's task: every future's record
// runs runFutureTask (a func value is a pointer to its code and captures;
// that of a top-level function is one static word for the program).
func (t *task) isFuture() bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&t.fn)) == futureTaskFn
}

// futureTaskFn is runFutureTask's func value, as isFuture compares it.
var futureTaskFn = func() unsafe.Pointer {
	fn := runFutureTask
	return *(*unsafe.Pointer)(unsafe.Pointer(&fn))
}()

package steal

import "context"

// Run runs fn as a task on the pool and returns when it has finished. It is
// the door from ordinary Go code into fork-join: inside fn, use Join, For,
// Spawn and NewGroup with the worker handle. fn sees the pool's context.
//
// A panic in fn (or in the work it waits for) is returned as a
// *PanicError, and so is a runtime.Goexit in fn, with ErrGoexit as its
// Value: Run returns an error, so it does not re-raise (see the package
// doc's "Panics and Goexit"). Run returns ErrClosed, without running fn,
// if the pool is closed, and a *SkippedError if the pool's context was
// cancelled (Shutdown gave up) before fn started.
//
// Called from a task of the same pool, Run runs fn at once on the calling
// worker, as part of the calling task (with its handle and context),
// instead of queueing it and waiting: a task that waited for the pool
// could wait for its own worker. Telling the two apart costs a stack read
// (microseconds) per call, which is why Run is not for tiny tasks.
func (p *Pool) Run(fn func(w *Worker)) error {
	p.made("Pool.Run")
	if fn == nil {
		nilFunc("Pool.Run")
	}
	return p.runCtx(context.Background(), fn)
}

// runCtx is Run with a context: fn sees ctx, joined with the pool's, and
// is skipped (a *SkippedError) if either is done before fn starts. A nil
// ctx, context.Background() or context.TODO() means the pool's context.
// Called from a task of p, fn runs at once on the calling worker as part
// of that task, seeing ctx (joined with the pool's) if one was given, else
// the task's context.
func (p *Pool) runCtx(ctx context.Context, fn func(w *Worker)) error {
	own := ctx != nil && ctx != context.Background() && ctx != context.TODO()
	if !own {
		ctx = context.Background()
	}
	c := p.callerCore()
	if cur := callerTask(c); cur != nil {
		if own && ctx.Err() != nil {
			return &SkippedError{Count: 1, Cause: context.Cause(ctx)}
		}
		run := fn
		if own {
			run = func(w *Worker) {
				joined, cancel := p.joinCtx(ctx)
				defer cancel()
				// What fn spawns outlives the call: it sees ctx, as the
				// tasks of a Submit with ctx do.
				asPart(w, &scopeCtx{Context: joined, base: ctx, own: true}, fn)
			}
		} else {
			cur.handed = true // fn gets cur's record as its handle: never reuse it
		}
		if pe := callRecover(cur, run); pe != nil {
			return pe // the package doc's panic rule: Run returns an error
		}
		return nil
	}
	f := &joinTask{}
	f.done = &f.latch
	f.latch.pending.Store(1)
	f.fn, f.ctx = fn, p.ctx
	if own {
		f.ctx, f.own = ctx, true
	}
	if err := p.submitWait(ctx, &f.task); err != nil {
		return err
	}
	if c != nil {
		c.waitFor(&f.latch) // a worker outside any task, e.g. in a panic handler
	} else {
		f.latch.block()
	}
	return f.latch.err
}

// Join is Join for callers outside the pool: it runs a and b on the pool and
// returns when both are done. It returns ErrClosed if the pool is closed.
// A panic in the work is returned as a *PanicError, as by Run.
func (p *Pool) Join(a, b func(w *Worker)) error {
	p.made("Pool.Join")
	if a == nil || b == nil {
		nilFunc("Pool.Join")
	}
	return p.Run(func(w *Worker) { Join(w, a, b) })
}

// For is For for callers outside the pool. It returns ErrClosed if the pool
// is closed.
// A panic in the work is returned as a *PanicError, as by Run.
func (p *Pool) For(lo, hi int, body func(w *Worker, i int)) error {
	p.made("Pool.For")
	if body == nil {
		nilFunc("Pool.For")
	}
	return p.Run(func(w *Worker) { For(w, lo, hi, body) })
}

// ForRange is ForRange for callers outside the pool. It returns ErrClosed if
// the pool is closed.
// A panic in the work is returned as a *PanicError, as by Run.
func (p *Pool) ForRange(lo, hi int, body func(w *Worker, lo, hi int)) error {
	p.made("Pool.ForRange")
	if body == nil {
		nilFunc("Pool.ForRange")
	}
	return p.Run(func(w *Worker) { ForRange(w, lo, hi, body) })
}

// callerTask returns the task c's goroutine is running now, or nil.
func callerTask(c *core) *Worker {
	if c == nil {
		return nil
	}
	return c.cur.load()
}

// joinCtx returns a context that carries ctx's values and deadline and is
// cancelled when ctx or the pool's context is, as a Submit's task sees.
func (p *Pool) joinCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	joined, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(p.ctx, func() { cancel(context.Cause(p.ctx)) })
	return joined, func() {
		stop()
		cancel(nil)
	}
}

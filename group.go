package steal

import (
	"context"
	"sync"
	"sync/atomic"
)

// Group runs tasks and waits for them, like errgroup.Group, on the pool, and
// without deadlock however deeply groups nest: a Wait inside a task runs
// other tasks (first the group's own) until the group is done.
//
// Create one inside a task with NewGroup, or outside the pool with
// Pool.Group. A group created inside a task belongs to that task: only it
// may call Go and Wait. A group created with Pool.Group may be used from any
// goroutine outside the pool.
//
// The first child to return a non-nil error, or to panic, cancels the
// group's context; Wait returns that error. A panic is returned as a
// *PanicError carrying the value and the stack, never re-raised. Children
// that have not started when the context is cancelled are skipped, not run;
// Skipped counts them.
type Group struct {
	w      *Worker // creator, nil for a group made outside the pool
	p      *Pool
	latch  latch
	ctx    context.Context
	cancel context.CancelFunc

	errOnce sync.Once
	err     error
	skipped atomic.Int64
}

// NewGroup returns a group whose tasks are queued on w, for use by the task
// that received w. Its context derives from w.Context(), so a group nested in
// a group child is cancelled with its parent.
func NewGroup(w *Worker) *Group {
	ctx, cancel := context.WithCancel(w.Context())
	return &Group{w: w, p: w.pool, ctx: ctx, cancel: cancel}
}

// Group returns a group to be used from outside the pool: Go queues tasks
// through the inject queue and Wait blocks. Its context derives from ctx.
func (p *Pool) Group(ctx context.Context) *Group {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{p: p, ctx: ctx, cancel: cancel}
}

// Context returns the group's context, cancelled by the first error or
// panic, and when Wait returns.
func (g *Group) Context() context.Context { return g.ctx }

// Go queues fn as a child of the group. Inside the pool it goes on the
// creating worker's fork-join deque, where idle workers may steal it; from
// outside, into the pool's inject queue. If the pool is closed, fn is not
// run and Wait returns ErrClosed.
func (g *Group) Go(fn func(w *Worker) error) {
	g.latch.pending.Add(1)
	t := &task{efn: fn, group: g}
	t.done = &g.latch
	if g.w != nil {
		g.w.jobs.Push(t)
		g.p.wakep()
		return
	}
	if err := g.p.submitWait(g.ctx, t); err != nil {
		g.fail(err)
		g.latch.countDown()
	}
}

// Wait returns once every child has finished or been skipped, with the
// first error or panic (as *PanicError), or nil. Inside the pool it helps
// run tasks while it waits; outside it blocks. It cancels the group's
// context before returning.
func (g *Group) Wait() error {
	if g.w != nil {
		g.w.waitFor(&g.latch)
	} else {
		g.latch.block()
	}
	g.cancel()
	return g.err
}

// Skipped returns how many children were not run because the group's
// context was cancelled before they started.
func (g *Group) Skipped() int { return int(g.skipped.Load()) }

// fail records the group's first error and cancels its context.
func (g *Group) fail(err error) {
	g.errOnce.Do(func() {
		g.err = err
		g.cancel()
	})
}

package steal

import "context"

// taskCtx is the context of a task submitted from outside the pool (Submit,
// TrySubmit, PoolSpawn, Run with a context): it carries the submitter's
// values and deadline, is cancelled when the submitter's context or the
// pool's is, and when the task returns.
//
// That last cancellation is the task's alone. The tasks it spawns (Spawn,
// Spawn of a Future) may outlive it, and are started later, perhaps after
// it has returned: had they inherited the context it was cancelled with,
// every one that had not started by then would be skipped, though nothing
// went wrong. So they see base, the context the task was submitted with,
// and get a taskCtx of their own when they start. Its parts (Join, Fork2,
// For) and the children of its groups, which it waits for, see the task's
// own context.
//
// Every taskCtx registers its cancel with its worker's ownTasks, which
// cancels it when the pool's context ends, rather than with the pool's
// context itself, whose one lock every worker would then take twice per
// task.
type taskCtx struct {
	context.Context                 // what the task sees
	base            context.Context // what the tasks it spawns see
	cancel          context.CancelCauseFunc
	owns            *ownTasks // where cancel is registered
	// own: base is a submitter's own context, which each task spawned
	// with it joins with the pool's when it starts; else base is the
	// pool's context.
	own bool
}

// end cancels the task's context once it has returned.
func (tc *taskCtx) end() {
	tc.owns.pop()
	tc.cancel(nil)
}

// lazy states of a record (Worker.lazy). A submitted task's context is
// made when something first asks for it, which most tasks never do: a task
// submitted without a context of its own runs under the pool's until then,
// and one submitted with a context of its own under that context alone.
// Asking is calling Context, and forking (Join, Fork2, For, NewGroup),
// whose parts and children see the task's context (see forkCtx). Nobody
// else can tell the difference: until it is made, nobody holds the
// context that would have been cancelled.
const (
	lazyNone uint8 = iota // no taskCtx to make
	lazyMay               // Context makes one under the pool's (makeContext)
	lazyOwn               // Context joins the submitter's with the pool's (makeContext)
	lazyMade              // ctx is a taskCtx, to end when the task returns
)

// makeContext makes the running task w's context if it is still to be
// made: a context cancelled when the pool's is and when the task returns,
// carrying the values and deadline of the context the task was submitted
// with (lazyOwn) or none (lazyMay: w.ctx is then the pool's, which has
// none), and cancelled with that one too. Either way it registers with
// the worker's ownTasks, not with the pool's context. Only w's task calls
// it, so it is the newest task on its worker to register with that stack:
// every task it ran while it waited has ended.
func (w *Worker) makeContext() {
	parent := w.ctx
	switch w.lazy {
	case lazyMay:
		parent = context.Background()
	case lazyOwn:
	default:
		return
	}
	c := w.c
	ctx, cancel := context.WithCancelCause(parent)
	c.owns.push(c.pool.ctx, cancel)
	w.ctx = &taskCtx{Context: ctx, base: w.ctx, cancel: cancel, owns: &c.owns, own: w.lazy == lazyOwn}
	w.lazy = lazyMade
}

// forkCtx returns the context that the parts and group children of w's
// task see: the task's own, made now if it is still to be made, so that
// a part and its forker see one context.
func (w *Worker) forkCtx() context.Context {
	w.makeContext()
	return w.ctx
}

// spawnCtx returns the context for a task w spawns, and whether it is a
// submitter's own context, to be joined with the pool's when the task
// starts (own). See taskCtx and the package doc's "Spawned tasks run".
//
// The lazy state is asked first: while a task's own context is still to
// be made, w.ctx is its submitter's, which may be another task's taskCtx
// (Submit(w.Context(), ...)) and is then what its spawned tasks must see.
// Once it is made, or for a part of a task (which sees its forker's), a
// taskCtx in w.ctx is the task's own.
func (w *Worker) spawnCtx() (ctx context.Context, own bool) {
	if w.lazy == lazyOwn {
		return w.ctx, true
	}
	switch c := w.ctx.(type) { // spawnBase's cases, without a call for most
	case *taskCtx:
		return c.base, c.own
	case *scopeCtx:
		return c.base, c.own
	case *groupCtx:
		return spawnBase(c.root)
	}
	return w.ctx, false
}

// spawnBase returns what a task spawned under ctx sees: ctx less the
// cancellations of the scopes that ctx belongs to, which end when the
// scope does (a task's return, a group's round, a map), and whether it is
// a submitter's own context (see spawnCtx). A spawned task may start after
// its scope has ended, and then it still runs.
func spawnBase(ctx context.Context) (context.Context, bool) {
	switch c := ctx.(type) {
	case *taskCtx:
		return c.base, c.own
	case *scopeCtx:
		return c.base, c.own
	case *groupCtx:
		return spawnBase(c.root)
	}
	return ctx, false
}

// scopeCtx is the context of a scope that a task opens and waits for, and
// that is cancelled when it ends (or fails): a MapErr or MapSeqErr, a
// PoolMap called from a task, a Pool.Group's round. The calls and
// children inside it see it; the tasks they spawn, which may start after
// the scope has ended, see base instead (spawnBase), as those of a task
// see its taskCtx's base. The groups made with NewGroup have a groupCtx,
// which spawnBase knows the same way.
type scopeCtx struct {
	context.Context
	base context.Context
	own  bool // as taskCtx.own
}

// newScope returns the context of a scope under w's task: ctx, with the
// context that w's spawned tasks would see as the base.
func newScope(w *Worker, ctx context.Context) *scopeCtx {
	base, own := w.spawnCtx()
	return &scopeCtx{Context: ctx, base: base, own: own}
}

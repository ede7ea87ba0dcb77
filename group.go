package steal

import (
	"context"
	"runtime/trace"
	"sync"
	"sync/atomic"
)

// Group runs tasks and waits for them, like errgroup.Group, on the pool, and
// without deadlock however deeply groups nest: a Wait inside a task runs
// other tasks (first the group's own) until the group is done.
//
// Make a group with NewGroup(w) inside a task and with p.Group(ctx)
// everywhere else. Unlike errgroup's, the zero Group is not ready to use,
// since it has no pool to run on: its Go, TryGo, SetLimit, Context and
// Wait panic, saying so. That is the rule of the whole package: a function whose
// first argument is a *Worker is for the task that received it and takes
// that task's context; a method of Pool (or, where Go forbids methods with
// type parameters, a function named Pool... that takes a context and the
// pool) is for any goroutine, and its work sees the context it is given
// (the pool's, for those that take none).
//
// The two constructors stay apart, instead of one that looks at its
// caller, because the groups differ in more than where they are made. A
// NewGroup's children go on its task's own deque, with no lock, and its
// Wait runs them first: that is what makes nested fork-join cheap, and it
// is safe only for that one task. A child that calls its parent's Go or
// Wait is caught and panics, and so is a goroutine the task started that
// calls them once the task waits or has returned; one that calls them
// while the task runs is a data race, which is not always caught (like any
// handle used so: see Worker) and which the race detector reports. A
// Pool.Group's children go through the pool's shared queue under a lock,
// so any goroutine may call its Go and Wait, also concurrently: they then
// behave as with errgroup and sync.WaitGroup (a Go that races with Wait
// may or may not be waited for by that Wait), except that a Wait called
// from inside one of the group's own children, which would wait for
// itself, panics instead of hanging. Any task may wait for any Pool.Group,
// as the package doc's "Waiting inside the pool" explains. A
// constructor that chose by its caller would also read the caller's stack
// on every call.
//
// SetLimit bounds the children unfinished at once and TryGo adds a child
// only below that bound, as in errgroup; at the limit, Go waits without
// holding a worker. ResultGroup is a Group whose children return values.
//
// The first child to return a non-nil error, or to panic or call
// runtime.Goexit, cancels the group's context; Wait returns that error (a
// panic or Goexit as a *PanicError carrying the value and the stack, never
// re-raised). Children that have not started when the context is done are
// skipped, not run; if any child was skipped and no child failed, Wait
// returns a *SkippedError wrapping context.Cause of the group's context, so
// work never vanishes silently. Skipped counts them, including the skipped
// children of groups nested in this group's children.
//
// A group may be reused once Wait has returned: Wait ends a round, and the
// next Go starts a new one with a fresh context derived from the same
// parent, no error and no skipped children.
type Group struct {
	owner *Worker // the task that made the group (NewGroup); nil for Pool.Group
	p     *Pool
	latch latch
	// parent is the context each round derives from; up is the group of
	// the child that made this group, which skipped counts flow to.
	parent context.Context
	up     *Group
	// sh is what only a Pool.Group, or a round that the execution
	// tracer watches, needs: nil for a NewGroup otherwise.
	sh *groupShared

	// The round: set by newRound, read by children through their task.
	// A NewGroup's context is a groupCtx (see lazy); a Pool.Group's, an
	// ordinary one with its cancel.
	ctx    context.Context
	first  groupCtx // the first round's, to save an allocation
	ended  bool     // Wait returned; the next Go starts a round
	round1 bool     // the first round is on: kids may be handed out
	nkids  uint8    // kids handed out

	err     atomic.Pointer[error] // the round's first error, set once, or refusedMark
	skipped atomic.Int64
	// skipCause is why the round's first skipped child (or that of a
	// group nested in one) was skipped. It is not always the cause of the
	// round's own context: a nested group's failure, or the pool's
	// shutdown, which reaches a Pool.Group's context a moment later.
	skipCause atomic.Pointer[error]

	lim atomic.Pointer[groupLimit] // nil until SetLimit (group_limit.go)

	// kids are the records of the first children of a NewGroup's first
	// round, so that a small group is one allocation instead of one per
	// child. Each is used once: a record may be touched by the thief that
	// ran it, or kept (wrongly) as a handle, after its child finished, so
	// a record that has been a task is never handed out again. Group and
	// kids fit 320 bytes, one of Go's size classes (TestRecordSizes); two
	// records make a group with two children (the fork-join shape) one
	// allocation, and more would make small groups bigger, and the
	// collector runs in proportion to bytes allocated. Further children
	// take records from the worker's slab (see recordSlab).
	kids [groupKids]task
}

// groupKids is how many child records a NewGroup carries.
const groupKids = 2

// groupShared is the part of a Group that a NewGroup needs only while the
// execution tracer watches it. Kept apart, it leaves a NewGroup, made for
// every node of a tree walked with groups, at 320 bytes instead of 352.
type groupShared struct {
	// mu serialises Go and Wait on a Pool.Group, which any goroutine may
	// call; a NewGroup is its owner's alone and never takes it.
	mu sync.Mutex
	// cancel cancels a Pool.Group's round context.
	cancel context.CancelCauseFunc
	// traceTask is the round's execution-tracer task, nil unless the
	// tracer was on when the round began (tracing.go).
	traceTask *trace.Task
}

// NewGroup returns a group whose children are queued on w's worker, where
// idle workers may steal them, for use by the task that received w. Its
// context derives from w.Context(), so a group nested in a group child is
// cancelled with its parent. Tasks that its children spawn do not see the
// round's cancellation, and run even if they start after Wait has
// returned (see the package doc's "Spawned tasks run").
//
// Cost: one 320-byte allocation holds the group, its first round's
// context and the task records of the first round's first two children;
// each further child takes a 48-byte record from the worker's slab (one
// allocation per 10 records), and each later round a small context. An
// ordinary context.WithCancelCause is made only if someone asks for the
// context's Done channel or values. Go allocates
// nothing else, but fn is a closure that escapes into its record, so the
// caller pays for it and for the variables it captures by reference. A
// tree walked with a group per node allocates at every node and keeps
// little alive, so the collector runs often and, more than the scheduler,
// sets its pace: docs/xlang.md measures it, and what GOGC changes.
func NewGroup(w *Worker) *Group {
	if w == nil {
		nilWorker("NewGroup")
	}
	w.core()
	g := &Group{owner: w, p: w.c.pool, parent: w.forkCtx(), up: w.group(), round1: true}
	g.latch.grp = g
	g.newRound()
	return g
}

// Group returns a group for use from any goroutine, inside or outside the
// pool: Go queues children through the pool's inject queue, and Wait blocks
// (or, called from a task of this pool, helps run tasks). Its context
// derives from ctx and is also cancelled when the pool's context is.
// Tasks that its children spawn see ctx instead, and run even if they
// start after Wait has returned (see the package doc's "Spawned tasks
// run").
func (p *Pool) Group(ctx context.Context) *Group {
	p.made("Pool.Group")
	if ctx == nil {
		ctx = context.Background()
	}
	g := &Group{p: p, parent: ctx, sh: new(groupShared)}
	g.latch.grp = g
	g.newRound()
	return g
}

// newRound derives a fresh context and clears the error and skip count.
func (g *Group) newRound() {
	parent, tt := traceGroup(g.parent)
	if tt != nil && g.sh == nil {
		g.sh = new(groupShared) // a NewGroup's owner alone gets here
	}
	if g.sh != nil {
		g.sh.traceTask = tt
	}
	if g.owner != nil {
		lazy := &g.first
		if g.ctx != nil {
			lazy = new(groupCtx) // a retained context of an ended round stays cancelled
		}
		lazy.init(parent, &g.p.ctxEpoch)
		g.ctx = lazy
	} else {
		ctx, cancel := context.WithCancelCause(parent)
		// The round ends when Wait returns, perhaps before the tasks its
		// children spawned have started: those see the group's parent,
		// joined with the pool's context as a Submit's task sees its own.
		own := g.parent != context.Background() && g.parent != context.TODO() && g.parent != g.p.ctx
		base := parent
		if !own {
			base = g.p.ctx
		}
		g.ctx, g.sh.cancel = &scopeCtx{Context: ctx, base: base, own: own}, cancel
	}
	if g.owner == nil && g.parent != g.p.ctx {
		// A Pool.Group's children must also stop with the pool. The
		// AfterFunc calls the round's own cancel, not g.sh.cancel: it may run
		// at once, on another goroutine, while g.sh.cancel is being replaced
		// here (a pool already shut down), or during a later round.
		cancel := g.sh.cancel
		stop := context.AfterFunc(g.p.ctx, func() { cancel(context.Cause(g.p.ctx)) })
		g.sh.cancel = func(cause error) { stop(); cancel(cause) }
	}
	if g.err.Load() != nil {
		g.err.Store(nil)
	}
	if g.skipped.Load() != 0 {
		g.skipped.Store(0)
		g.skipCause.Store(nil)
	}
	g.ended = false
}

// lazy returns the round's context if it is a groupCtx (NewGroup), else nil.
func (g *Group) lazy() *groupCtx {
	if g.owner == nil {
		return nil
	}
	return g.ctx.(*groupCtx)
}

// Context returns the group's context for the current round, cancelled by
// the first error, panic or Goexit of a child, and when Wait returns.
func (g *Group) Context() context.Context {
	g.made()
	if g.owner == nil {
		g.sh.mu.Lock()
		defer g.sh.mu.Unlock()
	}
	return g.ctx
}

// Go queues fn as a child of the group; fn sees the group's context. From
// NewGroup's task it goes on that worker's fork-join deque, where idle
// workers may steal it; for a Pool.Group, into the pool's inject queue
// (blocking like Submit if WithMaxQueued is full, unless called from a task
// of the pool). If the pool is closed, fn is not run and Wait returns
// ErrClosed (unless a child failed); the children queued before closing
// began still run. If the group has a limit (SetLimit), Go first
// waits for a child to finish while the limit is reached: see SetLimit.
func (g *Group) Go(fn func(w *Worker) error) {
	if fn == nil {
		nilFunc("Group.Go")
	}
	g.made()
	if g.lim.Load() != nil {
		g.add(fn, nil, false) // limited: limit.go
		return
	}
	if g.owner != nil {
		c := g.ownerCore()
		c.jobs.Push(g.addChild(c, fn))
		c.pool.wakep()
		return
	}
	g.sh.mu.Lock()
	t := g.addChild(nil, fn)
	ctx := g.ctx
	g.sh.mu.Unlock()
	if err := g.p.submitWait(ctx, t); err != nil {
		g.notQueued(ctx, err)
		g.latch.countDown()
	}
}

// notQueued accounts for a Pool.Group child that Go could not queue: a
// closed pool fails the round with ErrClosed (refuse); a round whose
// context ended while Go waited for room in a full backlog counts the
// child as skipped, like any child whose context ended before it started.
func (g *Group) notQueued(ctx context.Context, err error) {
	if err == ErrClosed {
		g.refuse()
		return
	}
	g.addSkipped(1, context.Cause(ctx))
}

// refuse records a closed pool's refusal of a child, for Wait to return
// ErrClosed unless a child fails, but leaves the round's context alone:
// no child failed, and the children queued before closing began must
// still run, as Close promises (cancelling it, as fail does, skipped
// them). It is not the round's first error either: a child that fails
// later still cancels the context, as a child's error always does.
func (g *Group) refuse() { g.err.CompareAndSwap(nil, refusedMark) }

// refusedMark in a Group's err says that the pool refused a child of the
// round, and no child has failed: Wait returns ErrClosed, and a child's
// failure still takes its place and cancels the round (fail).
var refusedMark = func() *error { err := ErrClosed; return &err }()

// addChild counts a new child in the current round and returns its task.
// c is the owner's worker for a NewGroup, nil for a Pool.Group.
func (g *Group) addChild(c *core, fn func(*Worker) error) *task {
	if g.ended {
		g.newRound()
	}
	g.latch.pending.Add(1)
	return g.newChild(c, fn)
}

// newChild returns a record for a child running fn: one of the group's
// own while the first round lasts, else, with the owner's worker c, one
// from c's slab (one allocation per 10 records), or a new one.
func (g *Group) newChild(c *core, fn func(*Worker) error) *task {
	t := g.ownKid()
	switch {
	case t != nil:
	case c != nil:
		t = c.newRecord()
	default:
		t = new(task)
	}
	return g.fill(t, fn)
}

// ownKid hands out the next of the group's own records, or returns nil.
func (g *Group) ownKid() *task {
	if g.round1 && int(g.nkids) < len(g.kids) {
		g.nkids++
		return &g.kids[g.nkids-1]
	}
	return nil
}

// fill makes t a child of the round running fn.
func (g *Group) fill(t *task, fn func(*Worker) error) *task {
	t.setErrFn(fn)
	t.ctx, t.done = g.ctx, &g.latch
	return t
}

// made panics on a Group that neither NewGroup nor Pool.Group made: unlike
// errgroup's, a zero Group has no pool to run its children on, and
// without this check it failed with a nil dereference deep in Go.
func (g *Group) made() {
	if g == nil || g.p == nil {
		panic("steal: Group used without NewGroup or Pool.Group (its zero value has no pool); " +
			"make it with NewGroup(w) inside a task or p.Group(ctx) elsewhere")
	}
}

// ownerCore returns the worker of the task that made g, and panics if
// another task or goroutine is calling.
func (g *Group) ownerCore() *core {
	c := g.owner.c
	if c == nil || c.cur.load() != g.owner {
		panic("steal: Group from NewGroup used outside the task that made it " +
			"(by a child, another goroutine, or after that task returned); use Pool.Group to share a group")
	}
	return c
}

// Wait returns once every child of the round has finished or been skipped,
// with the first error, panic or Goexit (as *PanicError), else a
// *SkippedError if any child (or a child of a group nested in one) was
// skipped, else nil. It cancels the group's context before returning and
// ends the round. Inside the pool it helps run tasks while it waits;
// outside it blocks.
func (g *Group) Wait() error {
	g.made()
	if g.owner != nil {
		c := g.ownerCore()
		waited := false
		defer g.unwindWait(c, &waited)
		c.waitFor(&g.latch)
		waited = true
		return g.endRound()
	}
	for {
		g.awaitShared()
		g.sh.mu.Lock()
		if g.latch.open() { // no Go slipped in since the latch opened
			err := g.endRound()
			g.sh.mu.Unlock()
			return err
		}
		g.sh.mu.Unlock()
	}
}

// unwindWait is deferred by a NewGroup's Wait. It does nothing once the
// wait is over. If a runtime.Goexit, which nothing recovers, unwinds the
// owner's goroutine from inside the wait (a child that Wait ran here, or
// any task it ran while helping, called it), it first finishes the round
// as Wait would have, running or waiting for the other children, so that
// no child outlives the task that made the group, as Join does for its
// second half. A child that calls Goexit as well ends this call, and the
// unwindWait it defers goes on.
func (g *Group) unwindWait(c *core, waited *bool) {
	if *waited {
		return
	}
	defer g.unwindWait(c, waited)
	c.waitFor(&g.latch)
	*waited = true
	g.endRound()
}

// awaitShared waits for a Pool.Group's latch: a worker of the pool helps,
// any other goroutine blocks. A task that is one of the group's children,
// or runs beneath one (a child of a group made in a child, and so on),
// would wait for itself forever, as with errgroup: that is caught and
// panics, which fails the child and so the group.
func (g *Group) awaitShared() {
	if g.latch.open() {
		return
	}
	c := g.p.callerCore()
	if c == nil {
		g.latch.block()
		return
	}
	if t := c.cur.load(); t != nil {
		for up := t.group(); up != nil; up = up.up {
			if up == g {
				panic("steal: Wait of a Pool.Group called from inside one of its children; " +
					"it would wait for itself")
			}
		}
	}
	c.waitFor(&g.latch)
}

// endRound computes Wait's result, passes skipped counts to the enclosing
// group, and cancels the round's context.
func (g *Group) endRound() error {
	var err error
	if p := g.err.Load(); p != nil {
		err = *p
	}
	n := g.skipped.Load()
	var cause error
	if n > 0 {
		cause = g.skippedCause()
	}
	if err == nil && n > 0 {
		err = &SkippedError{Count: int(n), Cause: cause}
	}
	if !g.ended {
		if n > 0 && g.up != nil {
			g.up.addSkipped(n, cause)
		}
		if lazy := g.lazy(); lazy != nil {
			lazy.end(err)
		} else {
			g.sh.cancel(err)
		}
		g.ended, g.round1 = true, false
		if sh := g.sh; sh != nil && sh.traceTask != nil {
			sh.traceTask.End()
			sh.traceTask = nil
		}
	}
	return err
}

// addSkipped counts n skipped children, skipped because of cause.
func (g *Group) addSkipped(n int64, cause error) {
	if g.skipCause.Load() == nil && cause != nil {
		g.skipCause.CompareAndSwap(nil, &cause)
	}
	g.skipped.Add(n)
}

// skippedCause is why the round's children were skipped: the cause noted
// with the first skip, else that of the round's context.
func (g *Group) skippedCause() error {
	if p := g.skipCause.Load(); p != nil {
		return *p
	}
	return context.Cause(g.ctx)
}

// Skipped returns how many children of the current (or just ended) round
// were not run because the group's context was done before they started,
// plus those of groups nested in its children once those groups' Wait has
// returned.
func (g *Group) Skipped() int {
	if g == nil { // a zero ResultGroup's: nothing ran, so nothing was skipped
		return 0
	}
	return int(g.skipped.Load())
}

// fail records the round's first error and cancels its context.
func (g *Group) fail(err error) {
	if p := g.err.Load(); p != nil && p != refusedMark {
		return
	}
	first := new(error)
	*first = err
	if !g.err.CompareAndSwap(nil, first) && !g.err.CompareAndSwap(refusedMark, first) {
		return
	}
	if lazy := g.lazy(); lazy != nil {
		lazy.cancel(err, true)
	} else {
		g.sh.cancel(err)
	}
}

// group returns the group whose child w's task is, or belongs to (a part of
// a child forked with Join, Fork2 or For), or nil.
func (w *Worker) group() *Group {
	if l := w.done; l != nil {
		return l.grp
	}
	return nil
}

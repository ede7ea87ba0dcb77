package steal

import (
	"context"
	"sync/atomic"
	"time"
)

// groupCtx is the context of one round of a group made with NewGroup, built
// so that a group costs one small allocation instead of a
// context.WithCancelCause, which registers every group in its parent's
// context (a map insert) and was a quarter of the time of tree recursion
// written with a group per node.
//
// It is cancelled when the group fails, when Wait ends the round, or when
// its parent is. Nothing registers anywhere: Err, which the scheduler calls
// before starting each child, checks this round's own flag, then, only if
// some group of the pool was cancelled since it last looked (the pool's
// epoch moved), every groupCtx above it, and last the nearest ancestor that
// is an ordinary context (root). A cancellation sets its flag before it
// bumps the epoch, so a look that finds the epoch unchanged since a full
// walk found every ancestor live is still right. Failures bump the epoch
// always; a round's end bumps it only if groups nested under it have rounds
// still open, since a nested group that was waited for has no children
// left to check.
//
// Done, Value (and with it context.Cause) and Deadline need the real thing:
// the first call makes an ordinary context.WithCancelCause chain down from
// root, cancelled with the same cause, and forwards to it from then on.
type groupCtx struct {
	up    *groupCtx       // the parent, if it is a groupCtx
	root  context.Context // the nearest ancestor that is not
	epoch *atomic.Uint64  // the pool's cancellation epoch

	cause   atomic.Pointer[error] // set once, when cancelled
	checked atomic.Uint64         // epoch at which every ancestor was seen live
	nested  atomic.Int64          // open rounds of groups made under this one

	real atomic.Pointer[realCtx] // made on demand (materialize); the first to store it wins
}

// realCtx is the ordinary context a groupCtx stands for, once made.
type realCtx struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// init makes c the context of a new round under parent.
func (c *groupCtx) init(parent context.Context, epoch *atomic.Uint64) {
	c.epoch, c.root = epoch, parent
	e := epoch.Load()
	if up, ok := parent.(*groupCtx); ok && up.epoch == epoch {
		c.up, c.root = up, up.root
		up.nested.Add(1)
		if up.checked.Load() != e || up.cause.Load() != nil {
			return // not known to be live: the first Err walks
		}
	}
	c.checked.Store(e)
}

// Err reports whether the round or any context above it was cancelled.
func (c *groupCtx) Err() error {
	if c.cause.Load() != nil {
		return c.canceled()
	}
	if e := c.epoch.Load(); c.checked.Load() != e {
		for a := c.up; a != nil; a = a.up {
			if a.cause.Load() != nil {
				return c.canceled()
			}
		}
		c.checked.Store(e)
	}
	if err := c.root.Err(); err != nil {
		// The cancellation reaches the ordinary context, if one was made,
		// a moment after root reports it: wait for it, so that Err is
		// never non-nil while the Done channel handed out is open.
		if r := c.real.Load(); r != nil {
			<-r.ctx.Done()
		}
		return err
	}
	return nil
}

// canceled returns context.Canceled once a Done channel handed out, if any,
// is closed too: a context must not report an error while its Done channel
// is open. The canceller closes it right after setting its flag.
func (c *groupCtx) canceled() error {
	if r := c.real.Load(); r != nil {
		<-r.ctx.Done()
	}
	return context.Canceled
}

// cancel cancels the round with cause (context.Canceled if nil). The first
// call wins. bump says whether contexts below may be caching a look.
func (c *groupCtx) cancel(cause error, bump bool) {
	p := &errCanceled // the common cause, without an allocation
	if cause != nil && cause != context.Canceled {
		p = new(error) // only here: &cause would move cause to the heap on every call
		*p = cause
	}
	if !c.cause.CompareAndSwap(nil, p) {
		return
	}
	if bump {
		c.epoch.Add(1)
	}
	// materialize stores real and then loads cause; we stored cause and
	// now load real: one of the two sees the other, so the real context,
	// if there is one, is cancelled.
	if r := c.real.Load(); r != nil {
		r.cancel(*p)
	}
}

// errCanceled is context.Canceled in a variable, for cancel to point at.
var errCanceled = context.Canceled

// end is cancel at the end of the round: it closes the round's place among
// its parent's open nested rounds.
func (c *groupCtx) end(cause error) {
	c.cancel(cause, c.nested.Load() > 0)
	if c.up != nil {
		c.up.nested.Add(-1)
	}
}

// materialize returns the ordinary context this one stands for, making it
// (and those of its ancestors) on first use.
func (c *groupCtx) materialize() context.Context {
	if r := c.real.Load(); r != nil {
		return r.ctx
	}
	parent := c.root
	if c.up != nil {
		parent = c.up.materialize()
	}
	ctx, cancel := context.WithCancelCause(parent)
	if !c.real.CompareAndSwap(nil, &realCtx{ctx, cancel}) {
		// Another goroutine made it first: drop ours (cancelling it
		// takes it off parent's list) and use theirs.
		cancel(nil)
		return c.real.Load().ctx
	}
	if p := c.cause.Load(); p != nil { // see cancel
		cancel(*p)
	}
	return ctx
}

func (c *groupCtx) Deadline() (time.Time, bool) { return c.root.Deadline() }
func (c *groupCtx) Done() <-chan struct{}       { return c.materialize().Done() }
func (c *groupCtx) Value(key any) any           { return c.materialize().Value(key) }

func (c *groupCtx) String() string { return "steal.Group context" }

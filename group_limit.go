package steal

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// groupLimit is a Group's limit on unfinished children (SetLimit) and the
// Go calls waiting for one of them to finish. A group gets one on its
// first SetLimit, so that groups without a limit stay small.
type groupLimit struct {
	// slots is the limit plus one; 0 means no limit, so that a group has
	// none unless SetLimit gives it one.
	slots atomic.Int64
	// nwait is len(waiters), for childDone to read without the lock.
	nwait   atomic.Int32
	mu      sync.Mutex
	waiters []*latch // one per waiting Go, counted down when a child finishes
}

// SetLimit limits the group to n unfinished children, as errgroup's
// SetLimit does: a child counts from the Go that adds it until it has
// returned or been skipped. A negative n removes the limit. With n == 0 no
// child can be added: TryGo returns false and Go panics (errgroup's Go
// would block forever).
//
// At the limit, Go waits for a child to finish without holding a worker,
// so a limited group cannot deadlock even a one-worker pool. From a task
// of the pool (a NewGroup's, or a Pool.Group's called from a task) it
// runs the group's own children meanwhile, and hands any other task it
// comes upon to a spare worker (see the package doc's "Waiting inside the
// pool"), so a child should not wait for what the caller of Go
// does after it; called from outside the pool, it blocks. The wait ends
// only when a slot frees, not when the group's context is cancelled (as
// with errgroup): cancelled children that return promptly free their
// slots. TryGo never waits. A child that calls
// Go on its own group while every slot is held by its siblings and itself
// waits for a sibling to finish; if all of them do that, they wait
// forever, as with errgroup.
//
// SetLimit panics, changing nothing, if any child of the group is
// unfinished, as errgroup's does; like errgroup's, it must not race with
// Go. For a group made with NewGroup only its task may call it.
//
// Cost: without a limit, nothing. With one, Go takes its slot with a
// compare-and-swap, and a Go that has to wait allocates one small record.
func (g *Group) SetLimit(n int) {
	g.made()
	if g.owner != nil {
		g.ownerCore()
	} else {
		g.sh.mu.Lock()
		defer g.sh.mu.Unlock()
	}
	if k := g.latch.pending.Load(); k != 0 {
		panic(fmt.Sprintf("steal: Group.SetLimit(%d) called while %d children are unfinished", n, k))
	}
	gl := g.lim.Load()
	if gl == nil {
		if n < 0 {
			return
		}
		gl = &groupLimit{}
		g.lim.Store(gl)
	}
	gl.slots.Store(max(int64(n)+1, 0))
}

// TryGo is Go without waiting: it adds fn as a child only if the group is
// below its limit (see SetLimit) and, for a Pool.Group on a pool made
// WithMaxQueued, the pool's backlog has room; it reports whether it did.
// Once added, fn is a child like any other: it may be skipped, and on a
// closed pool it is not run and Wait returns ErrClosed, as with Go.
// Without a limit, TryGo on a NewGroup always adds fn.
//
// Cost: as Go, plus the compare-and-swap of a limited group.
func (g *Group) TryGo(fn func(w *Worker) error) bool {
	if fn == nil {
		nilFunc("Group.TryGo")
	}
	return g.add(fn, nil, true)
}

// slotter reserves, in the round a child joins, the place its result goes
// (ResultGroup), and gives it back if the child could not be queued after
// all. Both run where the round cannot change: on the owner's task, or
// under g.sh.mu for a Pool.Group.
type slotter interface {
	reserve()
	release()
}

// add adds fn as a child of the group's current round, starting a round if
// the last one ended, and queues it. At the limit it waits for a slot
// (helping from inside the pool) unless try, in which case it returns
// false and adds nothing. s, if not nil, is told once the child has its
// place in the round.
func (g *Group) add(fn func(*Worker) error, s slotter, try bool) bool {
	g.made() // TryGo, and ResultGroup's Go and TryGo, come here directly
	if gl := g.lim.Load(); !try && gl != nil && gl.slots.Load() == 1 {
		panic("steal: Group.Go with a limit of 0 would wait forever; use TryGo, or SetLimit with n > 0 or n < 0")
	}
	if g.owner != nil {
		return g.addOwned(fn, s, try)
	}
	return g.addShared(fn, s, try)
}

// addOwned is add for a group made with NewGroup: only its task calls it,
// so the round cannot end while it waits.
func (g *Group) addOwned(fn func(*Worker) error, s slotter, try bool) bool {
	c := g.ownerCore()
	if g.ended {
		if try && g.limit() == 0 {
			return false // refused: the ended round, its error and values stay
		}
		g.newRound()
	}
	for !g.takeSlot() {
		if try {
			return false
		}
		if l := g.waitSlot(); l != nil {
			c.helpUntil(l, &g.latch, nil) // runs this group's children meanwhile
		}
	}
	if s != nil {
		s.reserve()
	}
	c.jobs.Push(g.newChild(c, fn))
	c.pool.wakep()
	return true
}

// addShared is add for a Pool.Group. The slot is taken and the child
// counted under g.sh.mu, so that a Wait racing with it either waits for the
// child or ends the round before it; it waits for a slot without the lock.
func (g *Group) addShared(fn func(*Worker) error, s slotter, try bool) bool {
	held := false // a TryGo's place in the backlog, taken before the round changed
	for {
		g.sh.mu.Lock()
		if g.ended {
			// A refused TryGo must leave the ended round (its error, its
			// values) as it was: refuse before starting a new one. With
			// every child of that round done, only a limit of 0 or a full
			// backlog can refuse; the backlog's place is taken now.
			if try && (g.limit() == 0 || !g.holdBacklog(&held)) {
				g.sh.mu.Unlock()
				return false
			}
			g.newRound()
		}
		if g.takeSlot() {
			break
		}
		if try {
			if held { // cannot happen: the round just began; stay exact
				g.p.releaseQueued(1)
			}
			g.sh.mu.Unlock()
			return false
		}
		g.sh.mu.Unlock()
		if l := g.waitSlot(); l != nil {
			if c := g.p.callerCore(); c != nil {
				c.helpUntil(l, &g.latch, nil) // runs this group's children meanwhile
			} else {
				l.block()
			}
		}
	}
	if s != nil {
		s.reserve()
	}
	t := g.newChild(nil, fn)
	ctx := g.ctx
	if try {
		// submitTask never blocks, so it may run under the lock, where the
		// reservation can still be taken back.
		var err error
		if held {
			err = g.p.queueEntry(entry{fn: unsafe.Pointer(t), x: recordMark}, true)
		} else {
			err = g.p.submitTask(t, false)
		}
		if err == ErrBacklogFull && s != nil {
			s.release()
		}
		g.sh.mu.Unlock()
		switch err {
		case nil:
		case ErrBacklogFull:
			g.childDone()
			return false
		default:
			g.refuse() // ErrClosed, as notQueued
			g.childDone()
		}
		return true
	}
	g.sh.mu.Unlock()
	if err := g.p.submitWait(ctx, t); err != nil {
		g.notQueued(ctx, err)
		g.childDone()
	}
	return true
}

// holdBacklog takes a place in the pool's WithMaxQueued backlog for a
// TryGo, noting it in held, and reports whether there was room (always,
// without a cap). Caller holds g.sh.mu.
func (g *Group) holdBacklog(held *bool) bool {
	p := g.p
	if p.maxQueued == 0 {
		return true
	}
	if !p.takeQueued() {
		return false
	}
	*held = true
	return true
}

// limit returns the group's limit, or -1 for none.
func (g *Group) limit() int64 {
	if gl := g.lim.Load(); gl != nil {
		return gl.slots.Load() - 1
	}
	return -1
}

// takeSlot counts one more child in the round if the limit allows it.
func (g *Group) takeSlot() bool {
	limit := g.limit()
	if limit < 0 {
		g.latch.pending.Add(1)
		return true
	}
	for {
		n := g.latch.pending.Load()
		if n >= limit {
			return false
		}
		if g.latch.pending.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// slotFree reports whether takeSlot would succeed now.
func (g *Group) slotFree() bool {
	limit := g.limit()
	return limit < 0 || g.latch.pending.Load() < limit
}

// waitSlot registers a latch that the next child to finish counts down,
// and returns it; or nil if a slot freed meanwhile. Registering before
// looking again means a child finishing in between either sees the latch
// or left the slot for us to see: no wakeup is lost.
func (g *Group) waitSlot() *latch {
	l := &latch{}
	l.pending.Store(1)
	gl := g.lim.Load()
	gl.mu.Lock()
	gl.waiters = append(gl.waiters, l)
	gl.nwait.Store(int32(len(gl.waiters)))
	gl.mu.Unlock()
	if !g.slotFree() {
		return l
	}
	gl.mu.Lock()
	for i, x := range gl.waiters {
		if x == l {
			gl.waiters = append(gl.waiters[:i], gl.waiters[i+1:]...)
			break
		}
	}
	gl.nwait.Store(int32(len(gl.waiters)))
	gl.mu.Unlock()
	return nil
}

// childDone counts one child of the group finished or skipped and wakes
// every Go waiting for a slot; they race for it and the losers wait again.
func (g *Group) childDone() {
	g.latch.countDown()
	gl := g.lim.Load()
	if gl == nil || gl.nwait.Load() == 0 {
		return
	}
	gl.mu.Lock()
	ws := gl.waiters
	gl.waiters = nil
	gl.nwait.Store(0)
	gl.mu.Unlock()
	for _, l := range ws {
		l.countDown()
	}
}

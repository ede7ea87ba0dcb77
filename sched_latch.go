package steal

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// latch counts outstanding fork-join work down to zero, and wakes whoever
// waits for it: a worker sleeping in waitFor, or a goroutine outside the
// pool blocked in block. A latch may be counted up again after it opened
// (a Group is reused), and countDown may race with block from another
// goroutine: every channel it closes is closed once and then forgotten.
type latch struct {
	pending atomic.Int64
	// sleeper is the worker asleep on this latch, if any.
	sleeper atomic.Pointer[core]
	// outside is set before a goroutine outside the pool blocks; only then
	// does countDown take its lock, so fork-join inside the pool pays no
	// lock, and a latch nobody outside waits for carries one pointer for
	// it (latches are in every group, future and fork record).
	outside atomic.Pointer[outsideWait]

	// err is how the task this latch waits for failed: a *PanicError or a
	// *SkippedError. Written before countDown, read after the latch opens.
	err error
	// grp is, for the latch of a group, that group; for the latch of a
	// part (Join, Fork2, For, the Map family), the group of the task that
	// forked it, so that groups made inside the part report to it; else
	// nil. One field serves both, since a task's record tells which its
	// latch is (part), so that the latch of every future and group keeps
	// room for joiner.
	grp *Group
	// joiner is the latch of the task that waits for this one (a *latch):
	// the lineage that tells a waiting task which tasks are part of what it
	// waits for (see "Waiting" in sched.go). A part (Join, Fork2, For, the
	// Map family) gets it when it is forked, since its forker always waits
	// for it; a group or future gets it when a task starts waiting for it,
	// and loses it when that wait ends. The fork writes it plainly, before
	// the part is published and while no other goroutine can reach the
	// latch; the rest of the time it is read and written atomically.
	joiner unsafe.Pointer
}

// joinerLatch returns the latch of the task that waits for l, or nil.
func (l *latch) joinerLatch() *latch { return (*latch)(atomic.LoadPointer(&l.joiner)) }

// groupOf returns the group of which t, whose latch l is, is a child, or
// nil.
func (l *latch) groupOf(t *task) *Group {
	if t.part {
		return nil
	}
	return l.grp
}

func (l *latch) open() bool { return l.pending.Load() == 0 }

// countDown marks one piece of work done and wakes the waiter when it was
// the last. It must be the last touch of the latch's owner by the caller:
// once open, the waiter may reuse or free it.
func (l *latch) countDown() {
	if l.pending.Add(-1) != 0 {
		return
	}
	if w := l.sleeper.Swap(nil); w != nil {
		select {
		case w.joinWake <- struct{}{}:
		default: // a token is already there
		}
	}
	if o := l.outside.Load(); o != nil {
		o.mu.Lock()
		if o.ch != nil {
			close(o.ch)
			o.ch = nil
		}
		o.mu.Unlock()
	}
}

// outsideWait is what goroutines outside the pool block on: the channel
// countDown closes when the latch opens, made on demand.
type outsideWait struct {
	mu sync.Mutex
	ch chan struct{}
	// over is, for a future that failed past the panic limit, the round
	// of the pool's panicSink its failure was counted in, plus one; 0
	// otherwise. Guarded by the panicSink's mu (panicSink.holdFuture).
	// It lives here, made on demand, since no record has room for it.
	over uint64
}

// waiter returns l's outsideWait, making it on first use. Storing it is
// what tells countDown to look; see block.
func (l *latch) waiter() *outsideWait {
	if o := l.outside.Load(); o != nil {
		return o
	}
	l.outside.CompareAndSwap(nil, new(outsideWait))
	return l.outside.Load()
}

// block waits, without helping, until the latch opens. It is for goroutines
// outside the pool, which have no queues to help with.
func (l *latch) block() { <-l.doneChan() }

// await waits for the latch from a goroutine that may or may not be one of
// p's workers: a worker helps (waitFor), anyone else blocks. Checking costs
// a stack read, so it is done only when the latch is not open yet.
func (l *latch) await(p *Pool) {
	if l.open() {
		return
	}
	if c := p.callerCore(); c != nil {
		c.waitFor(l)
		return
	}
	l.block()
}

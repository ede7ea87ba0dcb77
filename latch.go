package steal

import (
	"sync"
	"sync/atomic"
)

// latch counts outstanding fork-join work down to zero, and wakes whoever
// waits for it: a worker sleeping in waitFor, or a goroutine outside the
// pool blocked in block.
type latch struct {
	pending atomic.Int64
	// sleeper is the worker asleep on this latch, if any.
	sleeper atomic.Pointer[Worker]
	// outside is set before a goroutine outside the pool blocks; only then
	// does countDown take mu, so fork-join inside the pool pays no lock.
	outside atomic.Bool
	mu      sync.Mutex
	ch      chan struct{}
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
	if l.outside.Load() {
		l.mu.Lock()
		if l.ch != nil {
			close(l.ch)
		}
		l.mu.Unlock()
	}
}

// block waits, without helping, until the latch opens. It is for goroutines
// outside the pool, which have no queues to help with.
func (l *latch) block() {
	l.outside.Store(true)
	l.mu.Lock()
	if l.open() {
		l.mu.Unlock()
		return
	}
	if l.ch == nil {
		l.ch = make(chan struct{})
	}
	ch := l.ch
	l.mu.Unlock()
	<-ch
}

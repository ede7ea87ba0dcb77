package steal

import "context"

// closedChan is the channel doneChan returns for a latch already open.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// doneChan returns a channel closed when l opens, made on first use, so
// that a latch nobody waits for from outside costs no channel (block waits
// on it too). outside is set before the lock, and countDown looks at it
// after opening, so either countDown closes the channel made here or
// doneChan sees the latch open.
func (l *latch) doneChan() <-chan struct{} {
	if l.open() {
		return closedChan
	}
	o := l.waiter()
	o.mu.Lock()
	defer o.mu.Unlock()
	if l.open() {
		return closedChan
	}
	if o.ch == nil {
		o.ch = make(chan struct{})
	}
	return o.ch
}

// waitForCtx is waitFor that also stops when ctx is done; it reports
// whether l opened. It runs waitFor's loop (helpUntil: help, yield, then
// sleep on the idle list), and wakes the sleeper when ctx ends through the
// same token a latch sends when it opens.
func (c *core) waitForCtx(l *latch, ctx context.Context) bool {
	if ctx.Done() == nil {
		c.waitFor(l)
		return true
	}
	stop := context.AfterFunc(ctx, func() {
		select {
		case c.joinWake <- struct{}{}:
		default: // a token is already there
		}
	})
	defer stop()
	c.helpUntil(l, l, ctx)
	return l.open()
}

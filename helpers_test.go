package steal

import (
	"sync/atomic"
	"testing"
	"time"
)

// waitUntil polls cond until it holds or d passes, and reports which.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Microsecond)
	}
	return true
}

// waitAllParked waits until every worker of p is on the idle list.
func waitAllParked(t testing.TB, p *Pool) {
	t.Helper()
	if !waitUntil(10*time.Second, func() bool { return p.Stats().Idle == p.Workers() }) {
		t.Fatalf("workers never all parked: %s", p.SchedTrace(0))
	}
}

// waitClosed waits for ch with a generous deadline: a hang is a bug, a slow
// machine is not.
func waitClosed(t testing.TB, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not done after %v", what, d)
	}
}

// waitNil waits for the error on ch with a generous deadline and fails
// the test if it is not nil or does not come: a hang is a bug, a slow
// machine is not.
func waitNil(t testing.TB, ch <-chan error, d time.Duration, what string) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(d):
		t.Fatalf("%s: not done after %v", what, d)
	}
}

// countdown closes done when n calls to dec have happened.
type countdown struct {
	left atomic.Int64
	done chan struct{}
}

func newCountdown(n int) *countdown {
	c := &countdown{done: make(chan struct{})}
	c.left.Store(int64(n))
	if n == 0 {
		close(c.done)
	}
	return c
}

func (c *countdown) dec() {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
}

// within runs fn on its own goroutine and fails the test if it has not
// returned after d: the old failure of every test that uses it was a hang.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}

// mustPanic runs fn and returns the message of its panic, failing the test
// if it did not panic.
func mustPanic(t *testing.T, what string, fn func()) (msg any) {
	t.Helper()
	defer func() {
		msg = recover()
		if msg == nil {
			t.Fatalf("%s: no panic", what)
		}
	}()
	fn()
	return nil
}

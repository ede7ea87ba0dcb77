package steal

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Waiting in tests. Every wait for something that must happen is bounded
// by hang, through the helpers below: the wait* helpers take t and fail the
// test when the wait hangs; await, awaitDone and waitUntil report it
// instead, for goroutines that must not call t.Fatal and for tests that
// have recovery work to do (unwedging a pool) before failing. A wait for
// something that must NOT happen soon is a short, explicit stillBlocked.

// hang bounds every wait for something that must happen: a test that waits
// longer has hung. It is generous (the longest bound any test had) because
// a hang is a bug and a slow machine is not: on the 2-core CI, under -race,
// a wait that takes milliseconds alone may take seconds. A passing test
// never waits for it.
const hang = time.Minute

// await receives from ch (a value, or its close) and reports whether one
// came before hang passed.
func await[T any](ch <-chan T) (v T, ok bool) {
	timer := time.NewTimer(hang)
	defer timer.Stop()
	select {
	case v = <-ch:
		return v, true
	case <-timer.C:
		return v, false
	}
}

// waitValue receives from ch, failing the test if nothing comes: what names
// what should have sent.
func waitValue[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	v, ok := await(ch)
	if !ok {
		t.Fatalf("%s: nothing after %v", what, hang)
	}
	return v
}

// waitClosed waits for ch to be closed (or sent to), failing the test if it
// is not.
func waitClosed(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	if _, ok := await(ch); !ok {
		t.Fatalf("%s: not done after %v", what, hang)
	}
}

// waitNil waits for the error on ch and fails the test if it is not nil or
// does not come.
func waitNil(t testing.TB, ch <-chan error, what string) {
	t.Helper()
	if err := waitValue(t, ch, what); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// within runs fn on its own goroutine and fails the test if it has not
// returned: the old failure of every test that uses it was a hang.
func within(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	if _, ok := await(done); !ok {
		t.Fatalf("%s: still blocked after %v", what, hang)
	}
}

// waitUntil polls cond until it holds, and reports false if it still does
// not after hang.
func waitUntil(cond func() bool) bool {
	deadline := time.Now().Add(hang)
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
	if !waitUntil(func() bool { return p.Stats().Idle == p.Workers() }) {
		t.Fatalf("workers never all parked: %s", p.SchedTrace(0))
	}
}

var errNotCancelled = errors.New("the context was not cancelled within the bound")

// awaitDone returns ctx's cause once it is done, or errNotCancelled if it
// is not after hang.
func awaitDone(ctx context.Context) error {
	if _, ok := await(ctx.Done()); !ok {
		return errNotCancelled
	}
	return context.Cause(ctx)
}

// stillBlocked is the one wait that must NOT end: it fails the test if ch
// yields within d, the short while in which something that should stay
// blocked is given the chance to (wrongly) go on. d is small: the check
// can only catch a wrong wake-up that comes soon.
func stillBlocked[T any](t testing.TB, ch <-chan T, d time.Duration, what string) {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-ch:
		t.Fatalf("%s: went on within %v (received %v); it should still be blocked", what, d, v)
	case <-timer.C:
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

// withinDump runs fn on its own goroutine and fails the test, with every
// goroutine's stack, if it has not returned within d.
func withinDump(t *testing.T, d time.Duration, what string, fn func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%s: still blocked after %v\n%s", what, d, buf)
		return false
	}
}

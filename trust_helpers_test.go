package steal

import (
	"testing"
	"time"
)

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

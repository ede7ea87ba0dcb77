package steal

import (
	"sync/atomic"
	"testing"
	"time"
)

// writerFunc is an io.Writer made of a function.
type writerFunc func(b []byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Close may be called from the schedtrace writer, as from every callback.
func TestCloseFromSchedTraceWriter(t *testing.T) {
	var p *Pool
	ready := make(chan struct{})
	closed := make(chan error, 1)
	var calls atomic.Int64
	out := writerFunc(func(b []byte) (int, error) {
		if calls.Add(1) == 1 {
			<-ready
			closed <- p.Close()
		}
		return len(b), nil
	})
	p = New(WithWorkers(1), WithSchedTrace(time.Millisecond, out))
	close(ready)
	waitNil(t, closed, "Close from the schedtrace writer")
}

// A writer that blocks (a stalled connection) does not block Close, and
// no line starts after Close has returned.
func TestBlockedSchedTraceWriterDoesNotBlockClose(t *testing.T) {
	writing := make(chan struct{})
	unblock := make(chan struct{})
	defer close(unblock)
	var calls atomic.Int64
	out := writerFunc(func(b []byte) (int, error) {
		if calls.Add(1) == 1 {
			close(writing)
		}
		<-unblock
		return len(b), nil
	})
	p := New(WithWorkers(1), WithSchedTrace(time.Millisecond, out))
	waitClosed(t, writing, "first schedtrace line")
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	waitNil(t, done, "Close with a blocked schedtrace writer")
	n := calls.Load()
	time.Sleep(20 * time.Millisecond)
	if m := calls.Load(); m != n {
		t.Fatalf("%d schedtrace lines started after Close returned", m-n)
	}
}

// Close waits for a line being written, so that a program writing to the
// same writer after Close writes after the pool's last line.
func TestCloseWaitsForLineBeingWritten(t *testing.T) {
	writing := make(chan struct{})
	var ended atomic.Bool
	var calls atomic.Int64
	out := writerFunc(func(b []byte) (int, error) {
		if calls.Add(1) == 1 {
			close(writing)
			time.Sleep(50 * time.Millisecond) // a slow line, well under traceStopWait
			ended.Store(true)
		}
		return len(b), nil
	})
	p := New(WithWorkers(1), WithSchedTrace(time.Millisecond, out))
	waitClosed(t, writing, "first schedtrace line")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !ended.Load() {
		t.Fatal("Close returned while a schedtrace line was still being written")
	}
}

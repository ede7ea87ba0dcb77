package steal

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

type atomicInt = atomic.Int64

// TestGroupCancelledContextReportsSkip: children of a group whose context
// is already done are skipped, and Wait says so instead of returning nil.
func TestGroupCancelledContextReportsSkip(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := p.Group(ctx)
	ran := false
	g.Go(func(*Worker) error { ran = true; return nil })
	err := g.Wait()
	if ran || g.Skipped() != 1 {
		t.Fatalf("ran=%v Skipped=%d, want a skipped child", ran, g.Skipped())
	}
	var se *SkippedError
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrSkipped) || se.Count != 1 {
		t.Fatalf("Wait = %v, want a *SkippedError of 1 wrapping context.Canceled", err)
	}
}

// TestGroupAfterShutdownDeadline: once Shutdown has given up, a group made
// by a still-running task skips its children and Wait reports it. The task
// has started before Shutdown is called: had it not by the time Shutdown
// gave up, it would be skipped itself, as Shutdown documents, and never
// report (on a loaded machine the worker did not always take it within the
// 20 ms, and the test hung on res).
func TestGroupAfterShutdownDeadline(t *testing.T) {
	p := New(WithWorkers(1))
	gave, started := make(chan struct{}), make(chan struct{})
	res := make(chan error, 1)
	p.Go(func() {}) // so the pool has run something
	p.Submit(context.Background(), func(w *Worker) {
		close(started)
		<-gave
		g := NewGroup(w)
		g.Go(func(*Worker) error { return nil })
		res <- g.Wait()
	})
	waitClosed(t, started, "the task that makes the group")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want a deadline", err)
	}
	close(gave)
	err := waitValue(t, res, "the group's Wait in the task that started before Shutdown gave up")
	if !errors.Is(err, ErrSkipped) {
		t.Fatalf("Wait after the Shutdown deadline = %v, want a *SkippedError", err)
	}
	within(t, "Close", func() { p.Close() })
}

// TestNestedSkippedCountsReachParent: a child whose nested group skipped
// work, and that swallowed that group's error, still shows in its parent's
// Skipped count.
func TestNestedSkippedCountsReachParent(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	started := make(chan struct{})
	boom := errors.New("boom")
	g.Go(func(w *Worker) error {
		close(started)
		<-w.Context().Done() // the sibling's failure cancels us
		inner := NewGroup(w)
		inner.Go(func(*Worker) error { return nil })
		inner.Wait() // error ignored on purpose
		return nil
	})
	g.Go(func(*Worker) error { <-started; return boom })
	var err error
	within(t, "Wait", func() { err = g.Wait() })
	if err != boom || g.Skipped() != 1 {
		t.Fatalf("Wait = %v, Skipped = %d; want boom and 1 skipped below", err, g.Skipped())
	}
}

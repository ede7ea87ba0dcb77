package steal

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// A Pool.Group made, or given a new round, once the pool is shut down: the
// pool's cancellation reaches the round at once, on another goroutine,
// while the round is being set up. The race detector saw the two touch the
// group's cancel function in every run before the fix.
func TestPoolGroupAfterClose(t *testing.T) {
	p := New(WithWorkers(1))
	p.Close()
	for range 50 {
		g := p.Group(context.Background())
		var ran atomic.Bool
		g.Go(func(*Worker) error { ran.Store(true); return nil })
		if err := g.Wait(); !errors.Is(err, ErrClosed) {
			t.Fatalf("Wait on a closed pool = %v, want ErrClosed", err)
		}
		if ran.Load() {
			t.Fatal("a child of a closed pool's group ran")
		}
	}
}

// Once Shutdown has given up, a child that had not started is skipped and
// reported, as Shutdown documents, even though the group's own context
// hears of the pool's cancellation a moment later, on another goroutine.
// Before the fix the child ran in most rounds.
func TestShutdownSkipsQueuedGroupChild(t *testing.T) {
	for i := range 30 {
		p := New(WithWorkers(1))
		block, started := make(chan struct{}), make(chan struct{})
		p.Go(func() { close(started); <-block })
		<-started
		g := p.Group(context.Background())
		var ran atomic.Bool
		g.Go(func(*Worker) error { ran.Store(true); return nil })
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		if err := p.Shutdown(ctx); err != context.DeadlineExceeded {
			t.Fatalf("Shutdown = %v, want DeadlineExceeded", err)
		}
		cancel()
		close(block)
		err := g.Wait()
		p.Close()
		var se *SkippedError
		if ran.Load() || !errors.As(err, &se) || se.Count != 1 || !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: child ran %v, Wait = %v; want it skipped with the pool's cause", i, ran.Load(), err)
		}
	}
}

// A group whose children were skipped by a nested group's failure, which
// the child that made the nested group handled, reports the nested group's
// cause: its own context never ended, so it has none of its own. Before the
// fix the error read "2 tasks not run: <nil>".
func TestNestedSkippedCarriesCause(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	boom := errors.New("boom")
	var err error
	p.Run(func(w *Worker) {
		outer := NewGroup(w)
		outer.Go(func(w *Worker) error {
			inner := NewGroup(w)
			inner.Go(func(*Worker) error { return nil })
			inner.Go(func(*Worker) error { return nil })
			inner.Go(func(*Worker) error { return boom }) // runs first on one worker
			if err := inner.Wait(); !errors.Is(err, boom) {
				t.Errorf("inner Wait = %v, want boom", err)
			}
			return nil // handled
		})
		err = outer.Wait()
	})
	var se *SkippedError
	if !errors.As(err, &se) || se.Count != 2 {
		t.Fatalf("outer Wait = %v, want 2 skipped", err)
	}
	if !errors.Is(err, boom) {
		t.Fatalf("outer Wait = %v (cause %v), want the nested group's cause, boom", err, se.Cause)
	}
}

// A Pool.Group child whose Go waited for room in a full backlog until the
// group's context ended was never queued: it is a skipped child, reported
// as one, not the group's error. Before the fix Wait returned a bare
// context.Canceled and Skipped was 0.
func TestPoolGroupGoCancelledWhileWaitingForRoom(t *testing.T) {
	p := New(WithWorkers(1), WithMaxQueued(1))
	defer p.Close()
	block, started := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-block })
	<-started
	if err := p.TrySubmit(func(*Worker) {}); err != nil { // the backlog is full now
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := p.Group(ctx)
	var ran atomic.Bool
	goDone := make(chan struct{})
	go func() {
		defer close(goDone)
		g.Go(func(*Worker) error { ran.Store(true); return nil })
	}()
	time.Sleep(20 * time.Millisecond) // let Go block on the backlog
	cancel()
	select {
	case <-goDone:
	case <-time.After(5 * time.Second):
		t.Fatal("Go still blocked after its group's context ended")
	}
	close(block)
	err := g.Wait()
	var se *SkippedError
	if !errors.As(err, &se) || se.Count != 1 || g.Skipped() != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, Skipped = %d; want one skipped child, cause context.Canceled", err, g.Skipped())
	}
	if ran.Load() {
		t.Fatal("the child ran")
	}
}

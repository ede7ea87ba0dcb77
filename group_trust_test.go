package steal

import (
	"context"
	"errors"
	"runtime"
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

// A Pool.Group's Wait called from inside one of its own children (or from
// a child of a group made in one) would wait for itself forever: it panics
// instead, which fails the child, and the outer Wait reports it. Before,
// it hung (as errgroup's does).
func TestPoolGroupWaitInsideOwnChild(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for _, nested := range []bool{false, true} {
		g := p.Group(nil)
		g.Go(func(w *Worker) error {
			if !nested {
				return g.Wait()
			}
			inner := NewGroup(w)
			inner.Go(func(*Worker) error { return g.Wait() })
			return inner.Wait()
		})
		done := make(chan error, 1)
		go func() { done <- g.Wait() }()
		select {
		case err := <-done:
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("nested %v: Wait = %v, want the child's *PanicError", nested, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("nested %v: Wait inside the group's own child hung", nested)
		}
	}
}

// A child that calls runtime.Goexit while its group's owner runs it inside
// Wait ends the owner's goroutine too (see ErrGoexit); the owner's Wait
// still finishes the round first (the Goexit fails the group, so siblings
// that had not started are skipped), so none of them outlives the task
// that made the group. Before the fix, Run returned while a sibling was
// still running on the other worker.
func TestGroupGoexitWaitsForSiblings(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for round := range 10 {
		const n = 8
		var running, finished atomic.Int64
		err := p.Run(func(w *Worker) {
			g := NewGroup(w)
			for i := range n {
				g.Go(func(*Worker) error {
					if i == n-1 { // pushed last, so the owner runs it first
						waitUntil(5*time.Second, func() bool { return running.Load() > 0 })
						runtime.Goexit()
					}
					running.Add(1)
					time.Sleep(2 * time.Millisecond)
					running.Add(-1)
					finished.Add(1)
					return nil
				})
			}
			g.Wait()
		})
		if !errors.Is(err, ErrGoexit) {
			t.Fatalf("Run = %v, want ErrGoexit", err)
		}
		// The Goexit failed the group, so siblings that had not started are
		// skipped; those that had must all be over.
		r, f := running.Load(), finished.Load()
		time.Sleep(10 * time.Millisecond)
		if r != 0 || finished.Load() != f || f == 0 {
			t.Fatalf("round %d: Run returned with %d children running and %d finished, %d 10ms later",
				round, r, f, finished.Load())
		}
	}
}

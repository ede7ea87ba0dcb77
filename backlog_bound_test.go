package steal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// WithMaxQueued(n) bounds Stats.Backlog (submitted, not yet started) by n
// plus max(1, n/Workers())-1 tasks per worker, picked up but not started.
// Here each worker picks its batch up while n tasks wait, and then is
// stuck in the first task of it.
func TestMaxQueuedBacklogBound(t *testing.T) {
	const n, workers = 8, 2
	p := New(WithWorkers(workers), WithMaxQueued(n))
	gate1, gate2, gate := make(chan struct{}), make(chan struct{}), make(chan struct{})
	started := make(chan struct{}, 2)
	for _, g := range []chan struct{}{gate1, gate2} {
		if err := p.Submit(context.Background(), func(*Worker) { started <- struct{}{}; <-g }); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		waitClosedOrSent(t, started)
	}
	submitted := make(chan error, 1)
	go func() {
		for range 100 {
			if err := p.Submit(context.Background(), func(*Worker) { <-gate }); err != nil {
				submitted <- err
				return
			}
		}
		submitted <- nil
	}()
	full := func() bool { return p.roomWaiters.Load() > 0 && p.inject.len() == n }
	for _, g := range []chan struct{}{gate1, gate2} {
		if !waitUntil(full) {
			t.Fatalf("never reached a full backlog: %s", p.SchedTrace(0))
		}
		// Read before the release: the worker may pick its batch up at once.
		taken := p.takenCount()
		close(g) // a worker picks a batch up, and is stuck in its first task
		if !waitUntil(func() bool { return p.takenCount() > taken && full() }) {
			t.Fatalf("the released worker took nothing: %s", p.SchedTrace(0))
		}
	}
	backlog := p.Stats().Backlog
	close(gate)
	waitNil(t, submitted, "Submit")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if bound := n + workers*(max(1, n/workers)-1); backlog > bound {
		t.Fatalf("Stats.Backlog = %d with WithMaxQueued(%d) on %d workers; want at most %d", backlog, n, workers, bound)
	}
}

func waitClosedOrSent(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("task never started")
	}
}

// A Pool.Group's Go that waits for room in a full backlog when Close
// begins is refused, and its Wait must say ErrClosed, as Go promises, not
// a *SkippedError: the round's context ends with the pool's, so that
// context ending is closing, not a cancellation.
func TestPoolGroupGoAtFullBacklogClosedSaysErrClosed(t *testing.T) {
	for iter := range 40 {
		p := New(WithWorkers(1), WithMaxQueued(1))
		gate := make(chan struct{})
		started := make(chan struct{})
		if err := p.Submit(context.Background(), func(*Worker) { close(started); <-gate }); err != nil {
			t.Fatal(err)
		}
		<-started
		if err := p.Submit(context.Background(), func(*Worker) {}); err != nil { // fills the backlog
			t.Fatal(err)
		}
		const waiters = 32
		errs := make([]error, waiters)
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g := p.Group(context.Background())
				g.Go(func(*Worker) error { return nil })
				errs[i] = g.Wait()
			}()
		}
		waitUntil(func() bool { return p.roomWaiters.Load() == waiters })
		close(gate)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil && !errors.Is(err, ErrClosed) {
				t.Fatalf("iteration %d, waiter %d: Wait = %v, want nil or ErrClosed", iter, i, err)
			}
		}
	}
}

package steal

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// groupTree builds a binary tree of nested groups, each waiting for its two
// children, and returns the number of leaves.
func groupTree(w *Worker, depth int) int {
	if depth == 0 {
		return 1
	}
	g := NewGroup(w)
	var l, r int
	g.Go(func(w *Worker) error { l = groupTree(w, depth-1); return nil })
	g.Go(func(w *Worker) error { r = groupTree(w, depth-1); return nil })
	if err := g.Wait(); err != nil {
		panic(err)
	}
	return l + r
}

// TestGroupTreeDepth20 is the no-deadlock test: a binary tree of
// groups of depth 20 (a million leaves, every inner task waiting on its
// children) completes with W = 1, 2 and 4.
func TestGroupTreeDepth20(t *testing.T) {
	depth := 20
	if testing.Short() {
		depth = 14
	}
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		var leaves int
		p.Run(func(w *Worker) { leaves = groupTree(w, depth) })
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if leaves != 1<<depth {
			t.Fatalf("W=%d: %d leaves, want %d", workers, leaves, 1<<depth)
		}
	}
}

func TestGroupFirstErrorCancelsAndSkips(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	boom := errors.New("boom")
	var ran atomic.Int64
	var err error
	var skipped int
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		// LIFO: with one worker the last Go runs first, so the failing child
		// is queued last and the ten before it have not started.
		for range 10 {
			g.Go(func(*Worker) error { ran.Add(1); return nil })
		}
		g.Go(func(*Worker) error { return boom })
		err = g.Wait()
		skipped = g.Skipped()
		if g.Context().Err() == nil {
			t.Error("group context not cancelled")
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Wait = %v, want boom", err)
	}
	if skipped != 10 || ran.Load() != 0 {
		t.Fatalf("skipped %d ran %d, want 10 skipped, 0 ran", skipped, ran.Load())
	}
}

func TestGroupPanicBecomesError(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var err error
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		g.Go(func(*Worker) error { panic("child") })
		err = g.Wait()
	})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "child" {
		t.Fatalf("Wait = %v, want *PanicError(child)", err)
	}
}

func TestGroupFromOutside(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	var n atomic.Int64
	for range 100 {
		g.Go(func(w *Worker) error {
			n.Add(int64(groupTree(w, 3)))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 800 {
		t.Fatalf("n = %d, want 800", n.Load())
	}
}

func TestNestedGroupSeesParentCancellation(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var innerErr error
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		g.Go(func(w *Worker) error {
			inner := NewGroup(w)
			inner.Go(func(w *Worker) error {
				<-w.Context().Done() // cancelled by the sibling's error
				return nil
			})
			innerErr = inner.Wait()
			return nil
		})
		g.Go(func(*Worker) error { return errors.New("sibling failed") })
		g.Wait()
	})
	// The inner child either ran and saw the cancellation, or was skipped
	// because the sibling's error came first; either way inner.Wait
	// returned (the test would hang otherwise) and says which.
	if innerErr != nil && !errors.Is(innerErr, ErrSkipped) {
		t.Fatalf("inner Wait = %v, want nil or a skip", innerErr)
	}
}

// TestFutureWaitedByOtherTasks: tasks wait on futures that other tasks
// created, with one worker, so every wait must help.
func TestFutureWaitedByOtherTasks(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		var sum atomic.Int64
		p.Run(func(w *Worker) {
			futs := make([]*Future[int], 50)
			for i := range futs {
				futs[i] = Spawn(w, func(w *Worker) int { return fibJoin(w, 10) })
			}
			g := NewGroup(w)
			for i := range futs {
				g.Go(func(w *Worker) error {
					v, err := futs[len(futs)-1-i].Wait(w)
					sum.Add(int64(v))
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Error(err)
			}
		})
		p.Close()
		if sum.Load() != 50*55 {
			t.Fatalf("W=%d: sum %d, want %d", workers, sum.Load(), 50*55)
		}
	}
}

func TestFuturePanicIsError(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var f *Future[int]
	p.Run(func(w *Worker) { f = Spawn(w, func(*Worker) int { panic("f") }) })
	v, err := f.Wait(nil) // from outside: blocks
	var pe *PanicError
	if v != 0 || !errors.As(err, &pe) || pe.Value != "f" || !f.Ready() {
		t.Fatalf("Wait = %d, %v", v, err)
	}
}

func TestForCoversRangeOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		const n = 100_000
		hits := make([]atomic.Int32, n)
		p.For(0, n, func(w *Worker, i int) { hits[i].Add(1) })
		p.Close()
		for i := range hits {
			if hits[i].Load() != 1 {
				t.Fatalf("W=%d: index %d ran %d times", workers, i, hits[i].Load())
			}
		}
	}
}

// TestForSplitsLazily: with one worker no thief ever takes a split, so
// For of 10 iterations calls its body 10 times and pushes only a handful of
// halves (one per halving), never one task per iteration.
func TestForSplitsLazily(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	calls := 0
	p.ForRange(0, 1_000_000, func(w *Worker, lo, hi int) { calls++ })
	if calls > 2000 {
		t.Fatalf("ForRange made %d body calls for 1e6 iterations on one worker", calls)
	}
}

func TestBlockKeepsWorkerCountRunning(t *testing.T) {
	// One worker: while its task is blocked in Block, a spare runs the
	// tasks it spawned, which unblock it. Without a spare this deadlocks.
	p := New(WithWorkers(1))
	defer p.Close()
	done := make(chan struct{})
	p.Run(func(w *Worker) {
		release := make(chan struct{})
		w.Spawn(func(*Worker) { close(release) })
		w.Block(func() {
			select {
			case <-release:
			case <-time.After(10 * time.Second):
				t.Error("spawned task did not run while the worker was blocked")
			}
		})
		close(done)
	})
	<-done
}

// TestPlainTaskSeesPoolContext: an unrelated plain task (p.Go) that runs
// while a group child waits and helps sees the pool's context, not the
// group's, so a failing sibling in that group does not cancel it.
func TestPlainTaskSeesPoolContext(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	res := make(chan error, 1)
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		g.Go(func(w *Worker) error {
			fStarted := make(chan struct{})
			f := Spawn(w, func(*Worker) int { close(fStarted); time.Sleep(20 * time.Millisecond); return 1 })
			<-fStarted
			p.Submit(context.Background(), func(w *Worker) { // unrelated plain task
				g.fail(errors.New("a sibling failed"))
				res <- w.Context().Err()
			})
			f.Wait(w)
			return nil
		})
		g.Wait()
	})
	if err := <-res; err != nil {
		t.Fatalf("plain task saw the group's cancellation: %v", err)
	}
}

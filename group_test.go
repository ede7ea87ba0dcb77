package steal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
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

// TestGroupTreeDepth20 is the no-deadlock test of nested groups: a binary
// tree of groups of depth 20 (a million leaves, every inner task waiting on
// its children) completes with W = 1, 2 and 4.
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
			if _, ok := await(release); !ok {
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

// A Pool.Group child queued before Close began runs, as Close promises,
// though a later Go of the same round is refused with ErrClosed: the
// refusal is the round's error for Wait, not a failure that cancels the
// round's context. It cancelled it, and the queued child was skipped.
func TestPoolGroupGoRefusedByCloseRunsQueuedSiblings(t *testing.T) {
	for _, try := range []bool{false, true} {
		p := New(WithWorkers(1))
		gate, started := make(chan struct{}), make(chan struct{})
		if err := p.Submit(context.Background(), func(*Worker) { close(started); <-gate }); err != nil {
			t.Fatal(err)
		}
		<-started
		g := p.Group(context.Background())
		var ran atomic.Bool
		g.Go(func(*Worker) error { ran.Store(true); return nil })
		closed := make(chan error, 1)
		go func() { closed <- p.Close() }()
		if !waitUntil(p.closed.Load) {
			t.Fatal("Close did not begin")
		}
		refused := func(*Worker) error { t.Error("a child refused by Close ran"); return nil }
		if try {
			if !g.TryGo(refused) {
				t.Fatal("TryGo on a closed pool returned false; it adds the child, which Wait reports")
			}
		} else {
			g.Go(refused)
		}
		close(gate)
		if err := g.Wait(); !errors.Is(err, ErrClosed) {
			t.Fatalf("TryGo=%v: Wait = %v, want ErrClosed", try, err)
		}
		if err := waitValue(t, closed, "Close"); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if !ran.Load() || g.Skipped() != 0 || p.Stats().Total.Skipped != 0 {
			t.Fatalf("TryGo=%v: the child queued before Close began: ran %v, Skipped %d, Stats.Skipped %d",
				try, ran.Load(), g.Skipped(), p.Stats().Total.Skipped)
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
	waitClosed(t, goDone, "Go blocked on the backlog, once its group's context ended")
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
		err := waitValue(t, done, fmt.Sprintf("nested %v: Wait inside the group's own child", nested))
		var pe *PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("nested %v: Wait = %v, want the child's *PanicError", nested, err)
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
						waitUntil(func() bool { return running.Load() > 0 })
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

// TestPoolGroupReuse: a Pool.Group is used for several rounds; each round
// runs its children and returns its own error, not the previous round's.
func TestPoolGroupReuse(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	boom := errors.New("boom")
	within(t, "reused group", func() {
		g.Go(func(*Worker) error { time.Sleep(time.Millisecond); return boom })
		if err := g.Wait(); err != boom {
			t.Errorf("round 1: Wait = %v, want boom", err)
		}
		for round := 2; round < 50; round++ {
			var ran atomic.Int32
			g.Go(func(*Worker) error { ran.Add(1); return nil })
			g.Go(func(*Worker) error { ran.Add(1); return nil })
			if err := g.Wait(); err != nil || ran.Load() != 2 {
				t.Fatalf("round %d: Wait = %v, ran %d of 2", round, err, ran.Load())
			}
		}
	})
}

// TestNewGroupReuse: the same for a group made inside a task.
func TestNewGroupReuse(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	within(t, "reused NewGroup", func() {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			for round := range 50 {
				var ran atomic.Int32
				for range 3 {
					g.Go(func(*Worker) error { ran.Add(1); return nil })
				}
				if err := g.Wait(); err != nil || ran.Load() != 3 {
					t.Errorf("round %d: Wait = %v, ran %d of 3", round, err, ran.Load())
					return
				}
			}
		})
	})
}

// TestPoolGroupGoRacesWait: goroutines call Go and Wait on one Pool.Group at
// the same time, as they may with errgroup. Every child runs exactly once,
// nothing panics, and a final Wait sees them all.
func TestPoolGroupGoRacesWait(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	const adders, each = 4, 500
	var ran atomic.Int64
	within(t, "Go racing Wait", func() {
		var wg sync.WaitGroup
		for range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					g.Go(func(*Worker) error { ran.Add(1); return nil })
				}
			}()
		}
		stop := make(chan struct{})
		waiterDone := make(chan struct{})
		go func() {
			defer close(waiterDone)
			for {
				select {
				case <-stop:
					return
				default:
					if err := g.Wait(); err != nil {
						t.Errorf("Wait = %v", err)
					}
				}
			}
		}()
		wg.Wait()
		close(stop)
		<-waiterDone
		if err := g.Wait(); err != nil {
			t.Errorf("final Wait = %v", err)
		}
	})
	if got := ran.Load(); got != adders*each {
		t.Fatalf("ran %d children, want %d", got, adders*each)
	}
}

// allocChild and allocValue are plain functions, so that the tests below
// count the library's allocations and no closure's.
func allocChild(*Worker) error { return nil }
func allocValue(*Worker) int   { return 1 }

// TestGroupOfTwoIsOneAllocation: a NewGroup with two children, waited for,
// is one allocation: the group carries its first children's records, and
// ending the round allocates nothing.
func TestGroupOfTwoIsOneAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		allocs := testing.AllocsPerRun(100, func() {
			g := NewGroup(w)
			g.Go(allocChild)
			g.Go(allocChild)
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 1 {
			t.Errorf("a group of two children makes %.1f allocations, want 1", allocs)
		}
	})
}

// TestSpawnIsOneAllocation: Spawn and Wait of a plain function make one
// allocation, the future with its record and latch.
func TestSpawnIsOneAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		allocs := testing.AllocsPerRun(100, func() {
			if v, err := Spawn(w, allocValue).Wait(w); v != 1 || err != nil {
				t.Fatal(v, err)
			}
		})
		if allocs > 1 {
			t.Errorf("Spawn and Wait make %.1f allocations, want 1", allocs)
		}
	})
}

// TestGroupRecordsServeOneTask: a child's record, which is its handle, is
// never given to a later child, not even in the group's next round, so a
// handle kept past its task still panics when used instead of passing for
// the handle of whichever task has its record now.
func TestGroupRecordsServeOneTask(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		seen := map[*Worker]int{}
		for round := range 3 {
			var hs [3]*Worker
			for i := range hs {
				g.Go(func(w *Worker) error { hs[i] = w; return nil })
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			for _, h := range hs {
				if r, ok := seen[h]; ok {
					t.Fatalf("round %d: a child ran on the record of a child of round %d", round, r)
				}
				seen[h] = round
			}
		}
		var kept *Worker
		g.Go(func(w *Worker) error { kept = w; return nil })
		g.Wait()
		defer func() {
			if recover() == nil {
				t.Error("a kept child handle was usable after its task returned")
			}
		}()
		kept.Spawn(func(*Worker) {})
	})
}

// A child that fails after a Go was refused by Close still cancels the
// round's context, as a child's error always does: the refusal must not
// take the place of the first error that cancels. Siblings that wait for
// the context would otherwise keep the round, and Close, waiting.
func TestPoolGroupFailureAfterRefusalCancels(t *testing.T) {
	p := New(WithWorkers(2))
	g := p.Group(context.Background())
	boom := errors.New("boom")
	fail, started := make(chan struct{}), make(chan struct{}, 2)
	g.Go(func(*Worker) error { started <- struct{}{}; <-fail; return boom })
	g.Go(func(*Worker) error { started <- struct{}{}; <-g.Context().Done(); return nil })
	<-started
	<-started
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	if !waitUntil(p.closed.Load) {
		t.Fatal("Close did not begin")
	}
	g.Go(func(*Worker) error { t.Error("a child refused by Close ran"); return nil })
	close(fail)
	waited := make(chan error, 1)
	go func() { waited <- g.Wait() }()
	if err := waitValue(t, waited, "Wait"); !errors.Is(err, boom) {
		t.Errorf("Wait = %v, want the child's error", err)
	}
	if err := waitValue(t, closed, "Close"); err != nil {
		t.Errorf("Close: %v", err)
	}
}

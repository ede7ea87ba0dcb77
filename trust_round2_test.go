package steal

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A spare worker (Worker.Block) parks on the idle list like any worker;
// the stall detector, which watches the pool's own workers, indexed its
// table by the spare's id and the detector's goroutine crashed the
// process ("index out of range [1] with length 1"), every run.
func TestStallDetectorWithParkedSpare(t *testing.T) {
	p := New(WithWorkers(1), WithStallDetector(time.Millisecond, func(Stall) {}))
	defer p.Close()
	p.Run(func(w *Worker) {
		w.Block(func() { time.Sleep(30 * time.Millisecond) }) // the spare finds nothing and parks
	})
}

// A PoolResultGroup's Wait from inside its own child panics, as a
// Pool.Group's does, instead of waiting for itself forever (it hung).
func TestPoolResultGroupWaitInsideOwnChild(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	r := PoolResultGroup[int](nil, p)
	r.Go(func(*Worker) (int, error) { _, err := r.Wait(); return 1, err })
	done := make(chan error, 1)
	go func() { _, err := r.Wait(); done <- err }()
	select {
	case err := <-done:
		var pe *PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("Wait = %v, want the child's *PanicError", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait inside the group's own child hung")
	}
}

// A TryGo that adds nothing leaves the ended round as it was: Wait again
// returns the same values and error. A refused TryGo (limit 0, or a full
// backlog) started a new round, losing both, every time.
func TestRefusedTryGoKeepsEndedRound(t *testing.T) {
	boom := errors.New("boom")
	p := New(WithWorkers(2))
	defer p.Close()

	r := PoolResultGroup[int](nil, p)
	r.Go(func(*Worker) (int, error) { return 7, nil })
	r.Go(func(*Worker) (int, error) { return 0, boom })
	v1, e1 := r.Wait()
	r.SetLimit(0)
	if r.TryGo(func(*Worker) (int, error) { return 1, nil }) {
		t.Fatal("TryGo at limit 0 added a child")
	}
	if v2, e2 := r.Wait(); len(v2) != len(v1) || v2[0] != v1[0] || e2 != e1 {
		t.Fatalf("PoolResultGroup: Wait after a refused TryGo = %v, %v; want %v, %v", v2, e2, v1, e1)
	}

	p.Run(func(w *Worker) {
		g := NewGroup(w)
		g.Go(func(*Worker) error { return boom })
		e1 := g.Wait()
		ctx := g.Context()
		g.SetLimit(0)
		if g.TryGo(func(*Worker) error { return nil }) {
			t.Error("TryGo at limit 0 added a child")
		}
		if e2 := g.Wait(); e2 != e1 || g.Context() != ctx {
			t.Errorf("NewGroup: Wait after a refused TryGo = %v (new context %v), want %v", e2, g.Context() != ctx, e1)
		}
	})

	q := New(WithWorkers(1), WithMaxQueued(1))
	defer q.Close()
	g := q.Group(nil)
	g.Go(func(*Worker) error { return boom })
	e1 = g.Wait()
	gate, started := make(chan struct{}), make(chan struct{})
	q.Go(func() { close(started); <-gate })
	<-started
	if err := q.TrySubmit(func(*Worker) {}); err != nil { // fills the backlog
		t.Fatal(err)
	}
	ok := g.TryGo(func(*Worker) error { return nil })
	e2 := g.Wait()
	close(gate)
	if ok || e2 != e1 {
		t.Fatalf("Pool.Group on a full backlog: TryGo = %v, Wait = %v; want false and %v", ok, e2, e1)
	}
	if b := q.Stats().Backlog; b > 1 {
		t.Fatalf("Backlog = %d after a refused TryGo, want at most the one queued task", b)
	}
}

// Nested Blocks on one worker share its one spare: the pool keeps
// Workers() workers running, as Block documents. Each level started a
// spare of its own, so a 2-worker pool ran 2, 3 and 4 other tasks at once
// beside a task blocked 1, 2 and 3 levels deep.
func TestNestedBlockStartsOneSpare(t *testing.T) {
	for _, depth := range []int{1, 2, 3} {
		p := New(WithWorkers(2))
		gate, started := make(chan struct{}), make(chan struct{})
		p.Submit(nil, func(w *Worker) {
			var f func(d int)
			f = func(d int) {
				if d == 0 {
					close(started)
					<-gate
					return
				}
				w.Block(func() { f(d - 1) })
			}
			f(depth)
		})
		<-started
		var cur, peak atomic.Int64
		var wg sync.WaitGroup
		for range 40 {
			wg.Add(1)
			p.Go(func() {
				defer wg.Done()
				n := cur.Add(1)
				for {
					if m := peak.Load(); n <= m || peak.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				cur.Add(-1)
			})
		}
		wg.Wait()
		close(gate)
		p.Close()
		if peak.Load() > 2 {
			t.Fatalf("depth %d: %d tasks ran at once beside the blocked one on a 2-worker pool", depth, peak.Load())
		}
	}
}

// Stats.Spawned counts the futures Spawn starts, not only Worker.Spawn's
// tasks (it counted 100 of 200).
func TestSpawnedCountsFutures(t *testing.T) {
	p := New(WithWorkers(2))
	p.Run(func(w *Worker) {
		for range 100 {
			w.Spawn(func(*Worker) {})
			Spawn(w, func(*Worker) int { return 0 })
		}
	})
	p.Close()
	if got := p.Stats().Total.Spawned; got != 200 {
		t.Fatalf("Spawned = %d, want 200", got)
	}
}

// Nobody may close the pool Default returns: every other user of it would
// get ErrClosed for the rest of the program. Close returned nil and did it.
func TestDefaultPoolRefusesClose(t *testing.T) {
	if err := Default().Close(); !errors.Is(err, ErrDefaultPool) {
		t.Fatalf("Default().Close() = %v, want ErrDefaultPool", err)
	}
	if err := Default().Shutdown(context.Background()); !errors.Is(err, ErrDefaultPool) {
		t.Fatalf("Default().Shutdown() = %v, want ErrDefaultPool", err)
	}
	ran := make(chan struct{})
	if err := Default().Go(func() { close(ran) }); err != nil {
		t.Fatalf("Default().Go after a refused Close = %v", err)
	}
	<-ran
}

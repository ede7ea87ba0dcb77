package steal

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"
)

// spawnOutside starts fn as a future from outside the pool.
func spawnOutside[T any](t *testing.T, p *Pool, fn func(*Worker) T) *Future[T] {
	t.Helper()
	f, err := PoolSpawn(context.Background(), p, fn)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFutureDoneInSelect: Done is a channel that a select outside the
// pool wakes on when the future finishes; Ready and WaitContext agree.
func TestFutureDoneInSelect(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	gate := make(chan struct{})
	f := spawnOutside(t, p, func(*Worker) string { <-gate; return "v" })
	select {
	case <-f.Done():
		t.Fatal("Done closed before the future finished")
	default:
	}
	if f.Ready() {
		t.Fatal("Ready before the future finished")
	}
	close(gate)
	waitClosed(t, f.Done(), "Done after the future finished")
	if !f.Ready() {
		t.Fatal("Done closed but not Ready")
	}
	v, err := f.WaitContext(context.Background())
	if v != "v" || err != nil {
		t.Fatalf("WaitContext = %q, %v", v, err)
	}
	select {
	case <-f.Done(): // a finished future's Done is closed too
	default:
		t.Fatal("Done of a finished future is not closed")
	}
}

// TestFutureDoneMakesNoChannelUntilAsked: Spawn and Wait(w) make no
// channel; Done makes one only for an unfinished future.
func TestFutureDoneMakesNoChannelUntilAsked(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		f := Spawn(w, func(*Worker) int { return 1 })
		if f.j.latch.outside.Load() != nil {
			t.Error("Spawn made a channel")
		}
		f.Wait(w)
		if f.j.latch.outside.Load() != nil {
			t.Error("Wait inside the pool asked for a channel")
		}
		if f.Done() != closedChan {
			t.Error("Done of a finished future made a channel")
		}
	})
}

// TestFutureWaitContextGivesUp: from outside, WaitContext returns
// ctx.Err() when ctx ends first, and the result once the future finishes.
func TestFutureWaitContextGivesUp(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	gate := make(chan struct{})
	f := spawnOutside(t, p, func(*Worker) int { <-gate; return 42 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	var v int
	var err error
	within(t, "WaitContext with a deadline", func() { v, err = f.WaitContext(ctx) })
	if v != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitContext = %d, %v; want 0, deadline exceeded", v, err)
	}
	close(gate)
	if v, err := f.WaitContext(nil); v != 42 || err != nil {
		t.Fatalf("WaitContext(nil) after the future finished = %d, %v", v, err)
	}
}

// TestFutureWaitContextInside: from a task, WaitContext helps run the
// future on a one-worker pool instead of blocking it, and gives up when
// its context ends while a thief holds the future.
func TestFutureWaitContextInside(t *testing.T) {
	p := New(WithWorkers(1))
	within(t, "WaitContext on one worker", func() {
		p.Run(func(w *Worker) {
			f := Spawn(w, func(*Worker) int { return 5 })
			if v, err := f.WaitContext(context.Background()); v != 5 || err != nil {
				t.Errorf("WaitContext = %d, %v", v, err)
			}
		})
	})
	p.Close()

	q := New(WithWorkers(2))
	defer q.Close()
	gate, started := make(chan struct{}), make(chan struct{})
	within(t, "WaitContext inside, giving up", func() {
		q.Run(func(w *Worker) {
			f := Spawn(w, func(*Worker) int { close(started); <-gate; return 1 })
			<-started // a thief runs f
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if v, err := f.WaitContext(ctx); v != 0 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("WaitContext = %d, %v; want 0, deadline exceeded", v, err)
			}
			close(gate)
			if v, err := f.Wait(w); v != 1 || err != nil {
				t.Errorf("Wait after giving up = %d, %v", v, err)
			}
		})
	})
}

// TestFutureDoneOnSkip: a skipped future's Done closes too, and
// WaitContext reports the skip.
func TestFutureDoneOnSkip(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var f *Future[int]
	gate := make(chan struct{})
	p.Submit(ctx, func(w *Worker) {
		f = Spawn(w, func(*Worker) int { return 1 })
		close(gate)
		cancel()
	})
	<-gate
	waitClosed(t, f.Done(), "Done of a skipped future")
	if _, err := f.WaitContext(context.Background()); !errors.Is(err, ErrSkipped) {
		t.Fatalf("WaitContext = %v, want a *SkippedError", err)
	}
}

// TestPoolSpawn: a future spawned from outside runs and reports its panic,
// is skipped with a done context, and is refused by a closed pool.
func TestPoolSpawn(t *testing.T) {
	p := New(WithWorkers(1))
	f := spawnOutside(t, p, func(*Worker) int { panic("p") })
	var pe *PanicError
	if _, err := f.Wait(nil); !errors.As(err, &pe) || pe.Value != "p" {
		t.Fatalf("Wait = %v, want the panic", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	g, err := PoolSpawn(ctx, p, func(*Worker) int { ran = true; return 1 })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Wait(nil); !errors.Is(err, ErrSkipped) || ran {
		t.Fatalf("Wait = %v, ran %v; want skipped", err, ran)
	}
	within(t, "PoolSpawn from a task", func() {
		p.Run(func(w *Worker) {
			h, err := PoolSpawn(context.Background(), p, func(*Worker) int { return 3 })
			if v, err2 := h.Wait(w); err != nil || err2 != nil || v != 3 {
				t.Errorf("PoolSpawn from a task: %d, %v, %v", v, err, err2)
			}
		})
	})
	p.Close()
	if f, err := PoolSpawn(context.Background(), p, func(*Worker) int { return 0 }); f != nil || !errors.Is(err, ErrClosed) {
		t.Fatalf("PoolSpawn on a closed pool = %v, %v", f, err)
	}
}

// TestFutureLayout pins what runFutureTask relies on: a Future starts
// with its futureHead, which starts with the joinTask whose latch its
// record counts down.
func TestFutureLayout(t *testing.T) {
	var f Future[string]
	if off := unsafe.Offsetof(f.futureHead); off != 0 {
		t.Fatalf("Future.futureHead at offset %d, want 0", off)
	}
	if off := unsafe.Offsetof(f.j); off != 0 {
		t.Fatalf("futureHead.j at offset %d, want 0", off)
	}
	g := newFuture(nil, func(*Worker) string { return "x" })
	if g.j.done != &g.j.latch {
		t.Fatal("a future's record does not count down its own latch")
	}
	runFutureTask(&g.j.task)
	if g.val != "x" || g.fn != nil {
		t.Fatalf("after runFutureTask: val %q, fn kept %v", g.val, g.fn != nil)
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

package steal

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// A panic in a future that nobody waits for reaches Close: every panic
// reaches a waiter, the panic handler, or Close.
func TestUnwaitedFuturePanicReachesClose(t *testing.T) {
	p := New(WithWorkers(2))
	mustRun(t, p, func(w *Worker) {
		Spawn(w, func(*Worker) int { panic("inside") })
	})
	if _, err := PoolSpawn(context.Background(), p, func(*Worker) int { panic("outside") }); err != nil {
		t.Fatal(err)
	}
	err := p.Close()
	var pes []*PanicError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			var pe *PanicError
			if errors.As(e, &pe) {
				pes = append(pes, pe)
			}
		}
	}
	if len(pes) != 2 {
		t.Fatalf("Close = %v; want both futures' panics", err)
	}
	if s := p.Stats(); s.PanicsKept != 2 || s.Total.Panics != 2 {
		t.Fatalf("PanicsKept = %d, Total.Panics = %d; want 2, 2", s.PanicsKept, s.Total.Panics)
	}
}

// A waited future's panic goes to its waiter alone, without a handler.
func TestWaitedFuturePanicNotInClose(t *testing.T) {
	p := New(WithWorkers(2))
	f, err := PoolSpawn(context.Background(), p, func(*Worker) int { panic("boom") })
	if err != nil {
		t.Fatal(err)
	}
	var pe *PanicError
	if _, err := waitFuture(t, f); !errors.As(err, &pe) {
		t.Fatalf("Wait = %v; want a *PanicError", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v; want nil: the waiter got the panic", err)
	}
}

// With a panic handler, the handler hears of a future's panic when it
// happens, and a waiter gets it too.
func TestFuturePanicHandlerAndWaiter(t *testing.T) {
	var handled atomic.Int64
	p := New(WithWorkers(2), WithPanicHandler(func(*PanicError) { handled.Add(1) }))
	f, err := PoolSpawn(context.Background(), p, func(*Worker) int { panic("boom") })
	if err != nil {
		t.Fatal(err)
	}
	var pe *PanicError
	if _, err := waitFuture(t, f); !errors.As(err, &pe) {
		t.Fatalf("Wait = %v; want a *PanicError", err)
	}
	if _, err := PoolSpawn(context.Background(), p, func(*Worker) int { panic("unwaited") }); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v; want nil: the handler took the panics", err)
	}
	if n := handled.Load(); n != 2 {
		t.Fatalf("handler called %d times; want 2", n)
	}
}

// Futures that fail past WithPanicLimit and are then waited for went to
// their waiters: Close reports none of them, neither as dropped panics nor
// as skipped tasks, and those nobody waited for are still reported. Close
// said "3 more task panics were not kept" though every one had a waiter.
func TestWaitedFutureFailuresPastLimitNotInClose(t *testing.T) {
	p := New(WithWorkers(2), WithPanicLimit(2))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var fs []*Future[int]
	for i := range 10 {
		c := context.Background()
		if i%2 == 1 {
			c = ctx // skipped
		}
		f, err := PoolSpawn(c, p, func(*Worker) int { panic("boom") })
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	for _, f := range fs {
		if _, err := waitFuture(t, f); err == nil {
			t.Fatal("a failed future's Wait returned nil")
		}
	}
	// Unwaited ones past the limit are still reported.
	var unwaited []*Future[int]
	for range 3 {
		f, err := PoolSpawn(context.Background(), p, func(*Worker) int { panic("unwaited") })
		if err != nil {
			t.Fatal(err)
		}
		unwaited = append(unwaited, f)
	}
	for _, f := range unwaited {
		waitClosed(t, f.Done(), "unwaited future")
	}
	err := p.Close()
	var d *DroppedPanicsError
	var se *SkippedError
	if errors.As(err, &se) {
		t.Fatalf("Close = %v; want no *SkippedError: every skip had a waiter", err)
	}
	if !errors.As(err, &d) || d.Count != 1 {
		t.Fatalf("Close = %v; want 2 panics kept and 1 dropped, those of the unwaited futures", err)
	}
	if s := p.Stats(); s.PanicsKept != 2 || s.PanicsDropped != 1 {
		t.Fatalf("PanicsKept, PanicsDropped = %d, %d; want 2, 1", s.PanicsKept, s.PanicsDropped)
	}
}

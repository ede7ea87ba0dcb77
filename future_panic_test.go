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

package steal

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestGoexitInPlainTask: a task that calls runtime.Goexit (what t.FailNow
// does) is reported by Close, and the pool keeps its one worker: later
// tasks run and Close returns.
func TestGoexitInPlainTask(t *testing.T) {
	p := New(WithWorkers(1))
	p.Go(func() { runtime.Goexit() })
	ran := make(chan struct{})
	p.Go(func() { close(ran) })
	waitClosed(t, ran, 10*time.Second, "task after a Goexit")
	var err error
	within(t, 10*time.Second, "Close after a Goexit", func() { err = p.Close() })
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Close = %v, want an error wrapping ErrGoexit", err)
	}
}

// TestGoexitInRun: Run of a task that calls Goexit returns an error saying
// so, instead of nil.
func TestGoexitInRun(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var err error
	within(t, 10*time.Second, "Run of a Goexit task", func() {
		err = p.Run(func(*Worker) { runtime.Goexit() })
	})
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, ErrGoexit) {
		t.Fatalf("Run = %v, want a *PanicError wrapping ErrGoexit", err)
	}
	within(t, 10*time.Second, "Run after a Goexit", func() {
		if err := p.Run(func(*Worker) {}); err != nil {
			t.Errorf("second Run = %v", err)
		}
	})
}

// TestGoexitInGroupChild: Wait returns the child's Goexit as an error, like
// a panic; the group is cancelled, and the pool goes on.
func TestGoexitInGroupChild(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	g.Go(func(*Worker) error { runtime.Goexit(); return nil })
	g.Go(func(*Worker) error { return nil })
	var err error
	within(t, 10*time.Second, "Wait for a Goexit child", func() { err = g.Wait() })
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Wait = %v, want ErrGoexit", err)
	}
	if g.Context().Err() == nil {
		t.Fatal("group not cancelled by its child's Goexit")
	}
	within(t, 10*time.Second, "Run after", func() { p.Run(func(*Worker) {}) })
}

// TestGoexitWhileHelping: on one worker, a group child runs on the goroutine
// of the task waiting for it; its Goexit ends that task too. Both are
// reported, and the pool goes on.
func TestGoexitWhileHelping(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var err error
	afterWait := false
	within(t, 10*time.Second, "Run whose child calls Goexit", func() {
		err = p.Run(func(w *Worker) {
			g := NewGroup(w)
			g.Go(func(*Worker) error { runtime.Goexit(); return nil })
			g.Wait()
			afterWait = true
		})
	})
	if !errors.Is(err, ErrGoexit) || afterWait {
		t.Fatalf("Run = %v (code after Wait ran: %v), want ErrGoexit", err, afterWait)
	}
	within(t, 10*time.Second, "Run after", func() { p.Run(func(*Worker) {}) })
}

// TestGoexitInStolenJoinHalf: Join re-raises a thief's Goexit as a
// *PanicError that says so.
func TestGoexitInStolenJoinHalf(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var recovered any
	within(t, 10*time.Second, "Join with a Goexit half", func() {
		p.Run(func(w *Worker) {
			defer func() { recovered = recover() }()
			Join(w, func(*Worker) {
				waitUntil(10*time.Second, func() bool { return w.c.jobs.Len() == 0 })
			}, func(*Worker) { runtime.Goexit() })
		})
	})
	pe, ok := recovered.(*PanicError)
	if !ok || !errors.Is(pe, ErrGoexit) {
		t.Fatalf("recovered %v, want *PanicError wrapping ErrGoexit", recovered)
	}
	if !strings.Contains(pe.Error(), "Goexit") {
		t.Fatalf("error text %q does not say Goexit", pe.Error())
	}
}

// TestGoexitInBlock: Goexit inside Block's fn ends the task, releases the
// spare, and the pool can still close.
func TestGoexitInBlock(t *testing.T) {
	p := New(WithWorkers(1))
	var err error
	within(t, 10*time.Second, "Run with Goexit in Block", func() {
		err = p.Run(func(w *Worker) { w.Block(func() { runtime.Goexit() }) })
	})
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Run = %v, want ErrGoexit", err)
	}
	within(t, 10*time.Second, "Close", func() { p.Close() })
}

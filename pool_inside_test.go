package steal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCloseFromTask: Close and Shutdown called from a task of the same pool
// return ErrInsideTask at once, and the pool keeps running.
func TestCloseFromTask(t *testing.T) {
	p := New(WithWorkers(1))
	var closeErr, shutErr error
	within(t, "Close from a task", func() {
		p.Run(func(*Worker) {
			closeErr = p.Close()
			shutErr = p.Shutdown(context.Background())
		})
	})
	if !errors.Is(closeErr, ErrInsideTask) || !errors.Is(shutErr, ErrInsideTask) {
		t.Fatalf("Close = %v, Shutdown = %v; want ErrInsideTask", closeErr, shutErr)
	}
	ran := make(chan struct{})
	if err := p.Go(func() { close(ran) }); err != nil {
		t.Fatalf("Go after an inside Close = %v: the pool must keep running", err)
	}
	waitClosed(t, ran, "task after an inside Close")
	within(t, "Close from outside", func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
}

// TestRunFromTaskOneWorker: Run, Join, For and ForRange of the pool, called
// from one of its tasks, complete on a one-worker pool.
func TestRunFromTaskOneWorker(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var n atomic.Int64
	within(t, "Run inside Run", func() {
		p.Run(func(*Worker) {
			p.Run(func(*Worker) { n.Add(1) })
			p.Join(func(*Worker) { n.Add(1) }, func(*Worker) { n.Add(1) })
			p.For(0, 10, func(*Worker, int) { n.Add(1) })
			p.ForRange(0, 10, func(_ *Worker, lo, hi int) { n.Add(int64(hi - lo)) })
		})
	})
	if n.Load() != 23 {
		t.Fatalf("ran %d of 23 calls", n.Load())
	}
}

// TestRunFromTaskReturnsPanic: a panic in a Run called from a task is
// returned to the caller as a *PanicError, as from outside.
func TestRunFromTaskReturnsPanic(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var got any
	p.Run(func(*Worker) {
		got = p.Run(func(*Worker) { panic("inner") })
	})
	if pe, ok := got.(*PanicError); !ok || pe.Value != "inner" {
		t.Fatalf("recovered %#v, want *PanicError(inner)", got)
	}
}

// TestSubmitFromTaskFullBacklog: with WithMaxQueued(1), a task submitting
// many tasks to its own one-worker pool does not wait for room only it
// could make; every task runs.
func TestSubmitFromTaskFullBacklog(t *testing.T) {
	p := New(WithWorkers(1), WithMaxQueued(1))
	var ran atomic.Int64
	within(t, "Submit from a task", func() {
		p.Run(func(*Worker) {
			for range 10 {
				if err := p.Submit(context.Background(), func(*Worker) { ran.Add(1) }); err != nil {
					t.Errorf("Submit = %v", err)
				}
			}
			g := p.Group(context.Background())
			g.Go(func(*Worker) error { ran.Add(1); return nil })
			g.Go(func(*Worker) error { ran.Add(1); return nil })
			if err := g.Wait(); err != nil {
				t.Errorf("Wait = %v", err)
			}
		})
	})
	within(t, "Close", func() { p.Close() })
	if ran.Load() != 12 {
		t.Fatalf("ran %d of 12", ran.Load())
	}
}

// TestOutsideWaitsFromTask: a Pool.Group's Wait and a Future's Wait(nil),
// called from a task of a one-worker pool, help instead of blocking it.
func TestOutsideWaitsFromTask(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	within(t, "outside-style waits from a task", func() {
		p.Run(func(w *Worker) {
			g := p.Group(context.Background())
			g.Go(func(*Worker) error { return nil })
			if err := g.Wait(); err != nil {
				t.Errorf("Wait = %v", err)
			}
			f := Spawn(w, func(*Worker) int { return 7 })
			if v, err := f.Wait(nil); v != 7 || err != nil {
				t.Errorf("Future.Wait(nil) = %d, %v", v, err)
			}
		})
	})
}

// TestWorkerUsedAfterTask: a handle kept past its task panics with a
// message that says so.
func TestWorkerUsedAfterTask(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var kept *Worker
	p.Run(func(w *Worker) { kept = w })
	for name, use := range map[string]func(){
		"Spawn":    func() { kept.Spawn(func(*Worker) {}) },
		"Context":  func() { kept.Context() },
		"Join":     func() { Join(kept, func(*Worker) {}, func(*Worker) {}) },
		"NewGroup": func() { NewGroup(kept) },
		"Block":    func() { kept.Block(func() {}) },
	} {
		msg := mustPanic(t, name, use)
		if s := fmt.Sprint(msg); !strings.Contains(s, "outside its task") {
			t.Errorf("%s panicked with %q, want a message saying the Worker is used outside its task", name, s)
		}
	}
}

// TestWorkerUsedWhileTaskWaits: a goroutine the task started uses the
// task's handle while the task waits in Group.Wait: it panics.
func TestWorkerUsedWhileTaskWaits(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var msg any
	within(t, "misuse while waiting", func() {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			release := make(chan struct{})
			g.Go(func(*Worker) error { <-release; return nil })
			go func() {
				defer close(release)
				defer func() { msg = recover() }()
				// Wait until the task is inside Wait: its handle is no
				// longer current there. (An idle worker and 5 ms were not
				// proof of that: the other worker may be idle before it
				// steals the child, and a loaded machine can hold the task
				// off for longer, so that Spawn was a legitimate call.)
				if !waitUntil(func() bool { return w.c.cur.load() != w }) {
					panic("the task never reached Wait: its handle stayed current")
				}
				w.Spawn(func(*Worker) {})
			}()
			g.Wait()
		})
	})
	if s := fmt.Sprint(msg); !strings.Contains(s, "outside its task") {
		t.Fatalf("leaked handle used during Wait: recovered %q, want a misuse panic", s)
	}
}

// TestChildCallsParentGo: a child calling its parent NewGroup's Go while
// the parent waits is caught: the child fails with a message naming the
// misuse, nothing races. (While the parent still runs on another worker,
// the call cannot be told from the parent's own: see Worker.)
func TestChildCallsParentGo(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var err error
	within(t, "child calling parent's Go", func() {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			parent := w.ID()
			g.Go(func(cw *Worker) error {
				if cw.ID() != parent { // stolen: let the parent reach Wait and sleep
					waitUntil(func() bool { return p.Stats().Idle >= 1 })
					time.Sleep(5 * time.Millisecond)
				}
				g.Go(func(*Worker) error { return nil })
				return nil
			})
			err = g.Wait()
		})
	})
	if err == nil || !strings.Contains(err.Error(), "outside the task that made it") {
		t.Fatalf("Wait = %v, want the child's misuse panic", err)
	}
}

// TestKeptHandleOfSubmittedTask: a handle kept from a task submitted from
// outside is still refused while later submitted tasks run on the same
// worker: its record must not be serving one of them.
func TestKeptHandleOfSubmittedTask(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	kept := make(chan *Worker, 1)
	done := make(chan struct{})
	p.Go(func() {}) // warm the worker's records
	p.Submit(context.Background(), func(w *Worker) { kept <- w })
	old := <-kept
	var misused int
	for i := 0; i < 100; i++ {
		i := i
		p.Submit(context.Background(), func(w *Worker) {
			func() {
				defer func() {
					if recover() == nil {
						misused++ // the kept handle passed for this task's own
					}
				}()
				old.Spawn(func(*Worker) {})
			}()
			if i == 99 {
				close(done)
			}
		})
	}
	<-done
	if misused > 0 {
		t.Fatalf("a kept handle was accepted in %d of 100 later tasks on its worker", misused)
	}
}

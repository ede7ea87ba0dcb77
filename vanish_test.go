package steal

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// Tasks spawned inside a scope that ends before they start (a map, a
// group round, a PoolMap called from a task) run: the scope's end is not a
// failure of theirs. On one worker nobody steals, so each spawned task
// starts only after the scope that spawned it has ended.
func TestSpawnOutlivesScope(t *testing.T) {
	scopes := []struct {
		name string
		// run calls spawn from inside the scope, from a task of p.
		run func(t *testing.T, p *Pool, spawn func(w *Worker))
	}{
		{"MapErr", func(t *testing.T, p *Pool, spawn func(w *Worker)) {
			mustRun(t, p, func(w *Worker) {
				if _, err := MapErr(w, []int{1}, func(w *Worker, x int) (int, error) {
					spawn(w)
					return x, nil
				}); err != nil {
					t.Errorf("MapErr: %v", err)
				}
			})
		}},
		{"MapSeqErr", func(t *testing.T, p *Pool, spawn func(w *Worker)) {
			mustRun(t, p, func(w *Worker) {
				if _, err := MapSeqErr(w, slices.Values([]int{1}), func(w *Worker, x int) (int, error) {
					spawn(w)
					return x, nil
				}); err != nil {
					t.Errorf("MapSeqErr: %v", err)
				}
			})
		}},
		{"PoolMap-from-task", func(t *testing.T, p *Pool, spawn func(w *Worker)) {
			ctx := liveUntilEnd(t)
			mustRun(t, p, func(w *Worker) {
				if _, err := PoolMap(ctx, p, []int{1}, func(w *Worker, x int) int {
					spawn(w)
					return x
				}); err != nil {
					t.Errorf("PoolMap: %v", err)
				}
			})
		}},
		{"PoolMapErr-from-task", func(t *testing.T, p *Pool, spawn func(w *Worker)) {
			ctx := liveUntilEnd(t)
			mustRun(t, p, func(w *Worker) {
				if _, err := PoolMapErr(ctx, p, []int{1}, func(w *Worker, x int) (int, error) {
					spawn(w)
					return x, nil
				}); err != nil {
					t.Errorf("PoolMapErr: %v", err)
				}
			})
		}},
		{"NewGroup", func(t *testing.T, p *Pool, spawn func(w *Worker)) {
			mustRun(t, p, func(w *Worker) {
				g := NewGroup(w)
				g.Go(func(w *Worker) error { spawn(w); return nil })
				if err := g.Wait(); err != nil {
					t.Errorf("NewGroup: %v", err)
				}
			})
		}},
		{"Pool.Group", func(t *testing.T, p *Pool, spawn func(w *Worker)) {
			// The child also spawns a task that holds the only worker until
			// Wait has returned, so that the task under test starts after it.
			release := make(chan struct{})
			g := p.Group(context.Background())
			g.Go(func(w *Worker) error {
				spawn(w)
				w.Spawn(func(*Worker) { <-release }) // runnext: runs first
				return nil
			})
			err := g.Wait()
			close(release)
			if err != nil {
				t.Errorf("Pool.Group: %v", err)
			}
		}},
	}
	for _, sc := range scopes {
		t.Run(sc.name+"/Worker.Spawn", func(t *testing.T) {
			p := New(WithWorkers(1))
			var ran atomic.Int64
			sc.run(t, p, func(w *Worker) { w.Spawn(func(*Worker) { ran.Add(1) }) })
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if ran.Load() != 1 {
				t.Fatalf("spawned task ran %d times, want 1; Stats.Total.Skipped = %d",
					ran.Load(), p.Stats().Total.Skipped)
			}
		})
		t.Run(sc.name+"/Spawn", func(t *testing.T) {
			p := New(WithWorkers(1))
			var f atomic.Pointer[Future[int]]
			sc.run(t, p, func(w *Worker) { f.Store(Spawn(w, func(*Worker) int { return 7 })) })
			v, err := waitFuture(t, f.Load())
			if err != nil || v != 7 {
				t.Fatalf("future: %v, %v; want 7, nil", v, err)
			}
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

// liveUntilEnd is a context the test cancels only once it has ended, after
// its pool's Close. A spawned task sees the context of the map that spawned
// it, and one that is done by the time the task would start skips the task,
// as the package documents (Worker.Spawn): cancelled as soon as the map's
// scope returned, it raced with the task's start (9 failures in 9,000 runs).
func liveUntilEnd(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// mustRun runs fn with p.Run and fails the test on an error.
func mustRun(t *testing.T, p *Pool, fn func(w *Worker)) {
	t.Helper()
	if err := p.Run(fn); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// waitFuture waits for f from outside the pool, failing the test on a hang.
func waitFuture[T any](t *testing.T, f *Future[T]) (T, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := f.WaitContext(ctx)
	if err == context.DeadlineExceeded {
		t.Fatalf("future not done after 10s")
	}
	return v, err
}

// A spawned task that nobody waits for and that is skipped, because the
// context its submitter was given ended, is reported by Close.
func TestSkippedSpawnReportedByClose(t *testing.T) {
	p := New(WithWorkers(1))
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Bool
	if err := p.Submit(ctx, func(w *Worker) {
		w.Spawn(func(*Worker) { ran.Store(true) })
		cancel() // before the spawned task can start: this is the only worker
	}); err != nil {
		t.Fatal(err)
	}
	err := p.Close()
	if ran.Load() {
		t.Fatal("the spawned task ran after its context ended")
	}
	var se *SkippedError
	if !errors.As(err, &se) || se.Count != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v; want a *SkippedError counting 1 task, caused by context.Canceled", err)
	}
}

// A future that is skipped and that nobody waits for is reported by Close;
// one whose waiter got the *SkippedError is not.
func TestSkippedFutureReportedByClose(t *testing.T) {
	p := New(WithWorkers(1))
	ctx, cancel := context.WithCancel(context.Background())
	var waited *Future[int]
	if err := p.Submit(ctx, func(w *Worker) {
		Spawn(w, func(*Worker) int { return 1 }) // nobody waits
		waited = Spawn(w, func(*Worker) int { return 2 })
		cancel() // before either can start: this is the only worker
	}); err != nil {
		t.Fatal(err)
	}
	waitAllParked(t, p)
	if _, err := waited.Wait(nil); !errors.Is(err, ErrSkipped) {
		t.Fatalf("Wait = %v; want a *SkippedError", err)
	}
	err := p.Close()
	var se *SkippedError
	if !errors.As(err, &se) || se.Count != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v; want a *SkippedError counting the unwaited future alone", err)
	}
}

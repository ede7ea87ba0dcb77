package steal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type taskCtxKey struct{}

// A submitted task's context is cancelled when it returns, whether or not
// it was submitted with a context of its own, as Submit documents. Before
// the fix, a task submitted with nil, Background or TODO saw the pool's
// context, still live long after it returned.
func TestSubmitContextEndsWithTask(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	own := context.WithValue(context.Background(), taskCtxKey{}, 1)
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"nil", nil}, {"Background", context.Background()}, {"TODO", context.TODO()}, {"own", own}} {
		got := make(chan context.Context, 1)
		if err := p.Submit(tc.ctx, func(w *Worker) { got <- w.Context() }); err != nil {
			t.Fatal(err)
		}
		ctx := <-got
		if awaitDone(ctx) == errNotCancelled {
			t.Fatalf("%s: the task's context is still live after it returned", tc.name)
		}
		if p.Stats().Total.Skipped != 0 {
			t.Fatalf("%s: a task was skipped", tc.name)
		}
	}
	// TrySubmit too, and a task that asks twice gets the same context.
	got := make(chan context.Context, 2)
	if err := p.TrySubmit(func(w *Worker) { got <- w.Context(); got <- w.Context() }); err != nil {
		t.Fatal(err)
	}
	a, b := <-got, <-got
	if a != b {
		t.Fatal("Context returned two different contexts in one task")
	}
	if awaitDone(a) == errNotCancelled {
		t.Fatal("TrySubmit: the task's context is still live after it returned")
	}
}

// Tasks spawned by a submitted task may start after it has returned and its
// context was cancelled; they must run all the same, seeing the values and
// deadline it was submitted with. Before the fix, every child spawned by a
// task submitted with its own context was skipped once the task returned:
// 100 of 100 on one worker, and nobody was told.
func TestSpawnedTasksOutliveTheirSubmitter(t *testing.T) {
	own := context.WithValue(context.Background(), taskCtxKey{}, "v")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		ask  bool // the submitter asks for its context before it spawns
	}{{"own", own, false}, {"own-asked", own, true}, {"background", nil, false}, {"background-asked", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(1))
			const n = 50
			var wg sync.WaitGroup
			wg.Add(2 * n)
			values := make(chan any, 2*n)
			for range n {
				err := p.Submit(tc.ctx, func(w *Worker) {
					if tc.ask {
						w.Context()
					}
					w.Spawn(func(w *Worker) { values <- w.Context().Value(taskCtxKey{}); wg.Done() })
					Spawn(w, func(w *Worker) int { values <- w.Context().Value(taskCtxKey{}); wg.Done(); return 0 })
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			if _, ok := await(done); !ok {
				p.Close()
				t.Fatalf("spawned children lost: Stats.Skipped = %d", p.Stats().Total.Skipped)
			}
			p.Close()
			if s := p.Stats().Total.Skipped; s != 0 {
				t.Fatalf("%d tasks skipped", s)
			}
			var want any
			if tc.ctx != nil {
				want = "v"
			}
			for range 2 * n {
				if v := <-values; v != want {
					t.Fatalf("a spawned child saw value %v, want %v", v, want)
				}
			}
		})
	}
}

// A task spawned by one submitted with its own context still stops with
// the submitter's context: it is skipped if that context ended before it
// started.
func TestSpawnedTaskSkippedWhenSubmitterContextEnds(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{}, 1)
	if err := p.Submit(ctx, func(w *Worker) {
		w.Spawn(func(*Worker) { ran <- struct{}{} })
		cancel() // before the child can start on the one worker
	}); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(func() bool { return p.Stats().Total.Skipped == 1 }) {
		t.Fatalf("Skipped = %d, want 1", p.Stats().Total.Skipped)
	}
	select {
	case <-ran:
		t.Fatal("the child ran after its submitter's context was cancelled")
	default:
	}
}

// Shutdown cancels the context of every running task that was submitted
// with a context of its own, and of the tasks they spawned, with the
// pool's cause; tasks that start on a worker afterwards see it cancelled
// too. Nested: each waiting task runs the next on the same worker, so the
// worker holds several such contexts at once.
func TestShutdownCancelsOwnContextTasks(t *testing.T) {
	p := New(WithWorkers(2))
	own := context.WithValue(context.Background(), taskCtxKey{}, 1)
	const depth = 3
	started := make(chan struct{})
	ended := make(chan error, depth+1)
	var nest func(w *Worker, d int)
	nest = func(w *Worker, d int) {
		ctx := w.Context()
		if d < depth {
			// Wait for the child: the worker runs it above this
			// task's frames, unless the other worker took it.
			Spawn(w, func(w *Worker) int { nest(w, d+1); return 0 }).Wait(w)
		} else {
			close(started)
		}
		ended <- awaitDone(ctx)
	}
	if err := p.Submit(own, func(w *Worker) { nest(w, 0) }); err != nil {
		t.Fatal(err)
	}
	<-started
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	p.Shutdown(expired)
	for range depth + 1 {
		if err := <-ended; err == errNotCancelled {
			t.Fatal("a running task's own context was not cancelled by Shutdown")
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

type ctxKey struct{}

// stolenHalf runs Join inside fn's task and makes sure b is stolen: a waits
// (bounded) until a thief has taken b. It reports whether b ran elsewhere.
func stolenHalf(w *Worker, b func(w *Worker)) (stolen bool) {
	me := w.ID()
	Join(w, func(*Worker) {
		waitUntil(func() bool { return w.c.jobs.Len() == 0 })
	}, func(w *Worker) {
		stolen = w.ID() != me
		b(w)
	})
	return stolen
}

// TestStolenJoinHalfSeesGroupContext: the half of a Join that a thief runs
// sees the context of the group child that forked it: its values, and its
// cancellation.
func TestStolenJoinHalfSeesGroupContext(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.WithValue(context.Background(), ctxKey{}, "v"))
	var val any
	var nestedCancelled, stolen bool
	g.Go(func(w *Worker) error {
		stolen = stolenHalf(w, func(w *Worker) {
			val = w.Context().Value(ctxKey{})
			inner := NewGroup(w)
			g.fail(errors.New("stop")) // cancel the outer group now
			nestedCancelled = inner.Context().Err() != nil
			inner.Wait()
		})
		return nil
	})
	within(t, "Wait", func() { g.Wait() })
	if !stolen {
		t.Skipf("b was not stolen within %v; nothing to check", hang)
	}
	if val != "v" || !nestedCancelled {
		t.Fatalf("stolen half saw value %v (want v); nested group cancelled with parent: %v", val, nestedCancelled)
	}
}

// TestStolenPartsSeeForkerContext: For splits and Futures run by thieves see
// the forking task's context.
func TestStolenPartsSeeForkerContext(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	ctx := context.WithValue(context.Background(), ctxKey{}, "v")
	g := p.Group(ctx)
	var bad, elsewhere atomicCount
	g.Go(func(w *Worker) error {
		me := w.ID()
		For(w, 0, 2000, func(w *Worker, i int) {
			if w.ID() != me {
				elsewhere.add()
			}
			if w.Context().Value(ctxKey{}) != "v" {
				bad.add()
			}
			time.Sleep(10 * time.Microsecond)
		})
		f := Spawn(w, func(w *Worker) any { return w.Context().Value(ctxKey{}) })
		if v, _ := f.Wait(w); v != "v" {
			bad.add()
		}
		return nil
	})
	within(t, "Wait", func() { g.Wait() })
	if bad.get() != 0 {
		t.Fatalf("%d parts saw another context (%d ran on a thief)", bad.get(), elsewhere.get())
	}
}

// TestSubmitContextReachesTask: the task sees Submit's context: its values,
// its deadline, and its cancellation.
func TestSubmitContextReachesTask(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	deadline := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.WithValue(context.Background(), ctxKey{}, "v"), deadline)
	started := make(chan struct{})
	result := make(chan string, 1)
	p.Submit(ctx, func(w *Worker) {
		tc := w.Context()
		d, ok := tc.Deadline()
		close(started)
		if awaitDone(tc) == errNotCancelled {
			result <- "not cancelled with the submit context"
			return
		}
		switch {
		case tc.Value(ctxKey{}) != "v":
			result <- "value lost"
		case !ok || !d.Equal(deadline):
			result <- "deadline lost"
		default:
			result <- ""
		}
	})
	<-started
	cancel()
	if msg := <-result; msg != "" {
		t.Fatal(msg)
	}
}

// TestSubmitContextDoneBeforeStart: a task whose Submit context ended
// before it started is not run, and is counted.
func TestSubmitContextDoneBeforeStart(t *testing.T) {
	p := New(WithWorkers(1))
	release := make(chan struct{})
	p.Go(func() { <-release }) // hold the only worker
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	p.Submit(ctx, func(*Worker) { ran = true })
	cancel()
	close(release)
	p.Close()
	if ran || p.Stats().Total.Skipped != 1 {
		t.Fatalf("ran=%v Skipped=%d; want not run and counted", ran, p.Stats().Total.Skipped)
	}
}

type atomicCount struct{ n atomicInt }

func (a *atomicCount) add()     { a.n.Add(1) }
func (a *atomicCount) get() int { return int(a.n.Load()) }

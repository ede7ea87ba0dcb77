package steal

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// stolenHalf runs Join inside fn's task and makes sure b is stolen: a waits
// (bounded) until a thief has taken b. It reports whether b ran elsewhere.
func stolenHalf(w *Worker, b func(w *Worker)) (stolen bool) {
	me := w.ID()
	Join(w, func(*Worker) {
		waitUntil(10*time.Second, func() bool { return w.c.jobs.Len() == 0 })
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
	within(t, 10*time.Second, "Wait", func() { g.Wait() })
	if !stolen {
		t.Skip("b was not stolen within 10s; nothing to check")
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
	within(t, 20*time.Second, "Wait", func() { g.Wait() })
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
		select {
		case <-tc.Done():
		case <-time.After(10 * time.Second):
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

package steal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// nestGroups nests depth groups, one inside a child of the one above, and
// calls leaf from inside the innermost child.
func nestGroups(w *Worker, depth int, leaf func(w *Worker)) {
	g := NewGroup(w)
	g.Go(func(w *Worker) error {
		if depth == 0 {
			leaf(w)
		} else {
			nestGroups(w, depth-1, leaf)
		}
		return nil
	})
	g.Wait()
}

// TestGroupContextDeepCancel: a failure at the top of 200 nested groups is
// seen at the bottom, by Err, Done and context.Cause.
func TestGroupContextDeepCancel(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	boom := errors.New("boom")
	var errSeen, causeSeen error
	doneClosed := false
	within(t, "deep cancel", func() {
		p.Run(func(w *Worker) {
			top := NewGroup(w)
			top.Go(func(w *Worker) error {
				nestGroups(w, 200, func(w *Worker) {
					ctx := w.Context()
					if ctx.Err() != nil {
						t.Error("cancelled too early")
					}
					top.fail(boom) // as a sibling's error would
					errSeen = ctx.Err()
					_, doneClosed = await(ctx.Done())
					causeSeen = context.Cause(ctx)
				})
				return nil
			})
			top.Wait()
		})
	})
	if errSeen != context.Canceled || !doneClosed || causeSeen != boom {
		t.Fatalf("bottom saw Err %v, Done closed %v, Cause %v; want Canceled, true, boom", errSeen, doneClosed, causeSeen)
	}
}

// TestGroupContextSkipsBelowFailure: children queued in a nested group after
// an ancestor failed are skipped, and the nested Wait reports it.
func TestGroupContextSkipsBelowFailure(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	boom := errors.New("boom")
	var inner error
	ran := false
	within(t, "skip below failure", func() {
		p.Run(func(w *Worker) {
			top := NewGroup(w)
			top.Go(func(w *Worker) error {
				nestGroups(w, 5, func(w *Worker) {
					g := NewGroup(w)
					g.Go(func(*Worker) error { ran = true; return nil })
					top.fail(boom)
					inner = g.Wait()
				})
				return nil
			})
			top.Wait()
		})
	})
	if ran || !errors.Is(inner, ErrSkipped) || !errors.Is(inner, boom) {
		t.Fatalf("child ran %v, inner Wait %v; want skipped and a SkippedError caused by boom", ran, inner)
	}
}

// TestGroupContextUnwaitedNestedSeesEnd: a child makes a nested group and
// returns without waiting for it; when the outer Wait returns, the nested
// group's running child sees its context cancelled, as with errgroup.
func TestGroupContextUnwaitedNestedSeesEnd(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	started := make(chan struct{})
	saw := make(chan error, 1)
	kept := make(chan context.Context, 1)
	within(t, "unwaited nested", func() {
		p.Run(func(w *Worker) {
			root := w.ID()
			outer := NewGroup(w)
			outer.Go(func(w *Worker) error {
				nested := NewGroup(w)
				nested.Go(func(w *Worker) error {
					ctx := w.Context()
					kept <- ctx
					close(started)
					if w.ID() == root {
						// Run by the root's worker while it helps in
						// outer.Wait: the round cannot end until this
						// returns, so only the check below applies.
						saw <- context.Canceled
						return nil
					}
					waitUntil(func() bool { return ctx.Err() != nil })
					saw <- ctx.Err()
					return nil
				})
				<-started
				return nil // nested is never waited for
			})
			outer.Wait()
		})
	})
	if err := <-saw; err != context.Canceled {
		t.Fatalf("un-waited nested child saw %v after the outer Wait, want Canceled", err)
	}
	if err := (<-kept).Err(); err != context.Canceled {
		t.Fatalf("un-waited nested child's context is %v after the outer Wait, want Canceled", err)
	}
}

// TestGroupContextRetainedAfterReuse: a context kept from an ended round
// stays cancelled when the group is reused.
func TestGroupContextRetainedAfterReuse(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var old context.Context
	var oldErr, newErr error
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		g.Go(func(w *Worker) error { old = w.Context(); return nil })
		g.Wait()
		g.Go(func(w *Worker) error { newErr = w.Context().Err(); return nil })
		g.Wait()
		oldErr = old.Err()
	})
	if oldErr == nil || newErr != nil {
		t.Fatalf("old round's context Err %v (want cancelled), new round's %v (want nil)", oldErr, newErr)
	}
}

// TestGroupContextMaterializeRacesCancel: goroutines ask for Done while the
// group fails; every Done channel closes.
func TestGroupContextMaterializeRacesCancel(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for range 200 {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			ctx := g.Context()
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, ok := await(ctx.Done()); !ok {
						t.Error("Done never closed")
					}
				}()
			}
			g.Go(func(*Worker) error { return errors.New("fail") })
			g.Wait()
			wg.Wait()
		})
	}
}

// TestGroupContextDoneAfterMaterialize: a Done channel taken before the
// group fails closes when it fails, with the failure as cause.
func TestGroupContextDoneAfterMaterialize(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	boom := errors.New("boom")
	var closed bool
	var cause error
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		done := g.Context().Done() // made before anything failed
		g.Go(func(*Worker) error { return boom })
		g.Wait()
		_, closed = await(done)
		cause = context.Cause(g.Context())
	})
	if !closed || cause != boom {
		t.Fatalf("Done closed %v, Cause %v; want true, boom", closed, cause)
	}
}

// TestGroupContextAskedWhileCancelled: goroutines ask a NewGroup's context
// for Done, Value, Err and Deadline while a child fails (first round) or
// the round ends (second round). The context is made by compare-and-swap
// (groupCtx.materialize), so askers race with each other and with the
// cancellation: each must see it cancelled, with the failing child's error
// as cause in the first round and context.Canceled in the second, and each
// round's context must stay so once the group is reused.
func TestGroupContextAskedWhileCancelled(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	parent := context.WithValue(context.Background(), stressKey{}, "v")
	var bad atomic.Value
	finished := newCountdown(400)
	for i := range 400 {
		err := p.Submit(parent, func(w *Worker) {
			defer finished.dec()
			if err := askWhileCancelled(w, i); err != nil {
				bad.CompareAndSwap(nil, err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	waitClosed(t, finished.done, "the tasks")
	if e := bad.Load(); e != nil {
		t.Fatal(e)
	}
}

// askWhileCancelled runs two rounds of a group whose context three
// goroutines ask for while the round ends.
func askWhileCancelled(w *Worker, i int) error {
	g := NewGroup(w)
	boom := fmt.Errorf("boom %d", i)
	var rounds []context.Context
	for round := range 2 {
		gate := make(chan struct{})
		for j := range 4 {
			g.Go(func(w *Worker) error {
				if j == 0 {
					<-gate // the round lasts until the askers start
				}
				if round == 0 && j == i%4 {
					return boom
				}
				return w.Context().Err()
			})
		}
		ctx := g.Context()
		rounds = append(rounds, ctx)
		want := boom
		if round == 1 {
			want = context.Canceled
		}
		errs := make(chan error, 3)
		var wg sync.WaitGroup
		for j := range 3 {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- ask(ctx, (i+j)%4, want) }()
		}
		close(gate)
		if err := g.Wait(); err != want && !(round == 1 && err == nil) {
			return fmt.Errorf("round %d: Wait returned %v", round, err)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return fmt.Errorf("round %d: %v", round, err)
			}
		}
	}
	for r, ctx := range rounds {
		if ctx.Err() == nil || r == 0 && context.Cause(ctx) != boom {
			return fmt.Errorf("round %d's context after reuse: %v", r, context.Cause(ctx))
		}
	}
	return nil
}

// ask asks ctx one of four ways, then waits (each wait bounded by hang) for
// it to be done, and checks its cause.
func ask(ctx context.Context, how int, want error) error {
	switch how {
	case 1:
		if ctx.Value(stressKey{}) != "v" {
			return errors.New("the parent's value is lost")
		}
	case 2:
		if !waitUntil(func() bool { return ctx.Err() != nil }) {
			return errors.New("Err never set")
		}
	case 3:
		ctx.Deadline()
	}
	c := awaitDone(ctx)
	if c == errNotCancelled {
		return errors.New("Done never closed")
	}
	if c != want {
		return fmt.Errorf("cause %v, want %v", c, want)
	}
	return nil
}

// TestGroupContextErrOnlyOnceDone: a group context whose Done channel was
// handed out never reports an error while that channel is still open, also
// when the cancellation comes from above (the submitter's context), which
// reaches the group's ordinary context a moment after its root.
func TestGroupContextErrOnlyOnceDone(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var early atomic.Int64
	for range 1000 {
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan struct{})
		err := p.Submit(ctx, func(w *Worker) {
			g := NewGroup(w)
			gctx := g.Context()
			done := gctx.Done() // makes the ordinary context
			close(ready)
			for i := 1; gctx.Err() == nil; i++ {
				if i%1024 == 0 {
					runtime.Gosched() // with one processor, let the cancel run
				}
			}
			select {
			case <-done:
			default:
				early.Add(1)
			}
			g.Wait()
		})
		if err != nil {
			t.Fatal(err)
		}
		<-ready
		cancel()
	}
	p.Close()
	if n := early.Load(); n > 0 {
		t.Fatalf("%d times Err reported the cancellation while Done was still open", n)
	}
}

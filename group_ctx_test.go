package steal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
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
	within(t, 10*time.Second, "deep cancel", func() {
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
					select {
					case <-ctx.Done():
						doneClosed = true
					case <-time.After(5 * time.Second):
					}
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
	within(t, 10*time.Second, "skip below failure", func() {
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
	within(t, 10*time.Second, "unwaited nested", func() {
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
					deadline := time.Now().Add(5 * time.Second)
					for ctx.Err() == nil && time.Now().Before(deadline) {
						time.Sleep(100 * time.Microsecond)
					}
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
					select {
					case <-ctx.Done():
					case <-time.After(5 * time.Second):
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
		select {
		case <-done:
			closed = true
		case <-time.After(5 * time.Second):
		}
		cause = context.Cause(g.Context())
	})
	if !closed || cause != boom {
		t.Fatalf("Done closed %v, Cause %v; want true, boom", closed, cause)
	}
}

package steal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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
	waitClosed(t, finished.done, 30*time.Second, "the tasks")
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

// ask asks ctx one of four ways, then waits (at most 10 s) for it to be
// done, and checks its cause.
func ask(ctx context.Context, how int, want error) error {
	limit := time.After(10 * time.Second)
	switch how {
	case 1:
		if ctx.Value(stressKey{}) != "v" {
			return errors.New("the parent's value is lost")
		}
	case 2:
		for ctx.Err() == nil {
			select {
			case <-limit:
				return errors.New("Err never set")
			case <-time.After(time.Microsecond):
			}
		}
	case 3:
		ctx.Deadline()
	}
	select {
	case <-ctx.Done():
	case <-limit:
		return errors.New("Done never closed")
	}
	if c := context.Cause(ctx); c != want {
		return fmt.Errorf("cause %v, want %v", c, want)
	}
	return nil
}

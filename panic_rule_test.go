package steal

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The panic rule: a call that returns an error returns a panic in the
// work it waits for as a *PanicError; it does not re-raise it.
func TestPanicReturnedByCallsWithError(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	boom := func(*Worker) { panic("boom") }
	boomX := func(*Worker, int) (int, error) { panic("boom") }
	boomY := func(*Worker, int) int { panic("boom") }
	in := []int{1, 2, 3}
	calls := map[string]func() error{
		"Run":       func() error { return p.Run(boom) },
		"Pool.Join": func() error { return p.Join(boom, func(*Worker) {}) },
		"Pool.For":  func() error { return p.For(0, 3, func(*Worker, int) { panic("boom") }) },
		"Pool.ForRange": func() error {
			return p.ForRange(0, 3, func(*Worker, int, int) { panic("boom") })
		},
		"PoolMap": func() error {
			_, err := PoolMap(context.Background(), p, in, boomY)
			return err
		},
		"PoolMapErr": func() error {
			_, err := PoolMapErr(context.Background(), p, in, boomX)
			return err
		},
		"PoolMapSeq": func() error {
			_, err := PoolMapSeq(context.Background(), p, slices.Values(in), boomY)
			return err
		},
		"PoolMapSeqErr": func() error {
			_, err := PoolMapSeqErr(context.Background(), p, slices.Values(in), boomX)
			return err
		},
		"MapErr": func() (err error) {
			p.Run(func(w *Worker) { _, err = MapErr(w, in, boomX) })
			return err
		},
		"MapSeqErr": func() (err error) {
			p.Run(func(w *Worker) { _, err = MapSeqErr(w, slices.Values(in), boomX) })
			return err
		},
		"MapErrLimit": func() (err error) {
			p.Run(func(w *Worker) { _, err = MapErrLimit(w, 2, in, boomX) })
			return err
		},
		"Run-from-task": func() (err error) {
			p.Run(func(w *Worker) { err = p.Run(boom) })
			return err
		},
	}
	for name, call := range calls {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s re-raised the panic (%v); want it returned", name, r)
				}
			}()
			err = call()
		}()
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != "boom" {
			t.Errorf("%s = %v; want a *PanicError with the value", name, err)
		}
	}
}

// A wait for several tasks reports one failure: when two children of a
// group both panic, Wait returns one *PanicError, the other panic is
// counted but reaches neither a handler nor Close (the package doc's
// "Panics and Goexit" says so; it said every panic reaches a waiter, the
// handler or Close).
func TestPanicOfSecondChildIsOnlyCounted(t *testing.T) {
	var handled atomic.Int64
	p := New(WithWorkers(2), WithPanicHandler(func(*PanicError) { handled.Add(1) }))
	g := p.Group(context.Background())
	var both sync.WaitGroup
	both.Add(2)
	for _, v := range []string{"one", "two"} {
		g.Go(func(w *Worker) error {
			both.Done()
			w.Block(both.Wait) // both start before either fails
			panic(v)
		})
	}
	var err error
	within(t, "Wait", func() { err = g.Wait() })
	var pe *PanicError
	if !errors.As(err, &pe) || strings.Count(err.Error(), "panicked") != 1 {
		t.Errorf("Wait = %v, want one *PanicError", err)
	}
	within(t, "Close", func() { err = p.Close() })
	if err != nil || handled.Load() != 0 {
		t.Errorf("Close = %v, handler called %d times; want nil and 0", err, handled.Load())
	}
	if n := p.Stats().Total.Panics; n != 2 {
		t.Errorf("Stats.Total.Panics = %d, want 2", n)
	}
}

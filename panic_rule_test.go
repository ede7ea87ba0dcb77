package steal

import (
	"context"
	"errors"
	"slices"
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

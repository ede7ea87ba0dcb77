package steal

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestZeroPoolPanicsClearly: a Pool that New did not make (its zero
// value, or a nil *Pool) panics at once in every method and function
// that takes it, with a message that says so, instead of a nil
// dereference deep in the scheduler (or, for some, a quiet zero).
func TestZeroPoolPanicsClearly(t *testing.T) {
	ctx := context.Background()
	fn := func(*Worker) {}
	calls := map[string]func(p *Pool){
		"Close":           func(p *Pool) { p.Close() },
		"Expvar":          func(p *Pool) { _ = p.Expvar().String() }, // made lazily: (*Pool)(nil).Expvar() is a type check
		"For":             func(p *Pool) { p.For(0, 1, func(*Worker, int) {}) },
		"ForRange":        func(p *Pool) { p.ForRange(0, 1, func(*Worker, int, int) {}) },
		"Go":              func(p *Pool) { p.Go(func() {}) },
		"Group":           func(p *Pool) { p.Group(ctx) },
		"Join":            func(p *Pool) { p.Join(fn, fn) },
		"Run":             func(p *Pool) { p.Run(fn) },
		"SchedTrace":      func(p *Pool) { p.SchedTrace(0) },
		"SetPanicHandler": func(p *Pool) { p.SetPanicHandler(nil) },
		"Shutdown":        func(p *Pool) { p.Shutdown(ctx) },
		"Stats":           func(p *Pool) { p.Stats() },
		"Submit":          func(p *Pool) { p.Submit(ctx, fn) },
		"SubmitBatch":     func(p *Pool) { p.SubmitBatch(ctx, []func(*Worker){fn}) },
		"TrySubmit":       func(p *Pool) { p.TrySubmit(fn) },
		"Workers":         func(p *Pool) { p.Workers() },
		"WriteTrace":      func(p *Pool) { p.WriteTrace(io.Discard) },
		"PoolMap":         func(p *Pool) { PoolMap(ctx, p, []int{1}, func(*Worker, int) int { return 0 }) },
		"PoolMapErr":      func(p *Pool) { PoolMapErr(ctx, p, []int{1}, func(*Worker, int) (int, error) { return 0, nil }) },
		"PoolMapSeq":      func(p *Pool) { PoolMapSeq(ctx, p, slices.Values([]int{1}), func(*Worker, int) int { return 0 }) },
		"PoolMapSeqErr": func(p *Pool) {
			PoolMapSeqErr(ctx, p, slices.Values([]int{1}), func(*Worker, int) (int, error) { return 0, nil })
		},
		"PoolSpawn":       func(p *Pool) { PoolSpawn(ctx, p, func(*Worker) int { return 0 }) },
		"TryPoolSpawn":    func(p *Pool) { TryPoolSpawn(p, func(*Worker) int { return 0 }) },
		"PoolResultGroup": func(p *Pool) { PoolResultGroup[int](ctx, p) },
	}
	for name, call := range calls {
		for _, p := range []*Pool{new(Pool), nil} {
			func() {
				defer func() {
					r := recover()
					msg, _ := r.(string)
					if !strings.Contains(msg, "steal: ") || !strings.Contains(msg, "New") {
						t.Errorf("%s on a %s: recovered %v, want a panic saying the pool was not made by New", name, kind(p), r)
					}
				}()
				call(p)
			}()
		}
	}
}

func kind(p *Pool) string {
	if p == nil {
		return "nil *Pool"
	}
	return "zero Pool"
}

// TestZeroFuturePanicsClearly: a Future that neither Spawn nor PoolSpawn
// made (its zero value, or nil) stands for no work. Ready said true and
// Wait returned the zero value with no error, as if work that never
// existed had succeeded; every method now panics, saying so.
func TestZeroFuturePanicsClearly(t *testing.T) {
	calls := map[string]func(f *Future[int]){
		"Ready":       func(f *Future[int]) { f.Ready() },
		"Done":        func(f *Future[int]) { f.Done() },
		"Wait":        func(f *Future[int]) { f.Wait(nil) },
		"WaitContext": func(f *Future[int]) { f.WaitContext(context.Background()) },
	}
	for name, call := range calls {
		for _, f := range []*Future[int]{new(Future[int]), nil} {
			func() {
				defer func() {
					r := recover()
					msg, _ := r.(string)
					if !strings.Contains(msg, "steal: ") || !strings.Contains(msg, "Spawn") {
						t.Errorf("Future.%s on %v: recovered %v, want a panic saying no Spawn made it", name, f, r)
					}
				}()
				call(f)
			}()
		}
	}
}

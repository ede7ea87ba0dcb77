package steal

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Every other call of the package that takes a context reads nil as
// context.Background(); Shutdown(nil) must too, and so be Close, instead
// of stopping intake and then dereferencing the nil context.
func TestShutdownNilContextIsClose(t *testing.T) {
	p := New(WithWorkers(1))
	var ran atomic.Int32
	for range 10 {
		if err := p.Go(func() { ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	within(t, "Shutdown(nil)", func() {
		//lint:ignore SA1012 nil is the input under test
		if err := p.Shutdown(nil); err != nil {
			t.Errorf("Shutdown(nil) = %v, want nil", err)
		}
	})
	if n := ran.Load(); n != 10 {
		t.Errorf("Shutdown(nil) ran %d of 10 queued tasks", n)
	}
}

// A nil function is refused where it is passed, by a panic that names the
// call, and nothing is queued: run later as a task it failed on a worker
// with a nil dereference that said neither what was nil nor who passed it,
// and Submit had reported it queued.
func TestNilFunctionRefusedAtCall(t *testing.T) {
	p := New(WithWorkers(2))
	outside := map[string]func(){
		"Submit":        func() { p.Submit(nil, nil) },
		"TrySubmit":     func() { p.TrySubmit(nil) },
		"Go":            func() { p.Go(nil) },
		"Run":           func() { p.Run(nil) },
		"Join":          func() { p.Join(func(*Worker) {}, nil) },
		"For":           func() { p.For(0, 0, nil) },
		"ForRange":      func() { p.ForRange(0, 1, nil) },
		"PoolSpawn":     func() { PoolSpawn[int](nil, p, nil) },
		"PoolMap":       func() { PoolMap[int, int](nil, p, nil, nil) },
		"PoolMapErr":    func() { PoolMapErr[int, int](nil, p, []int{1}, nil) },
		"PoolMapSeq":    func() { PoolMapSeq(nil, p, nil, func(*Worker, int) int { return 0 }) },
		"PoolMapSeqErr": func() { PoolMapSeqErr[int, int](nil, p, func(func(int) bool) {}, nil) },
		"Group.Go":      func() { p.Group(nil).Go(nil) },
		"Group.TryGo":   func() { p.Group(nil).TryGo(nil) },
		"ResultGroup.Go": func() {
			PoolResultGroup[int](nil, p).Go(nil)
		},
		"ResultGroup.TryGo": func() {
			PoolResultGroup[int](nil, p).TryGo(nil)
		},
	}
	inside := map[string]func(w *Worker){
		"Spawn":       func(w *Worker) { w.Spawn(nil) },
		"Block":       func(w *Worker) { w.Block(nil) },
		"Join":        func(w *Worker) { Join(w, nil, func(*Worker) {}) },
		"Join2":       func(w *Worker) { Join2[int](w, nil, 1, 2) },
		"Fork2":       func(w *Worker) { Fork2[int, int](w, nil, 1, 2) },
		"For":         func(w *Worker) { For(w, 0, 0, nil) },
		"ForRange":    func(w *Worker) { ForRange(w, 0, 1, nil) },
		"Spawn[T]":    func(w *Worker) { Spawn[int](w, nil) },
		"Map":         func(w *Worker) { Map[int, int](w, []int{1}, nil) },
		"MapErr":      func(w *Worker) { MapErr[int, int](w, nil, nil) },
		"MapSeq":      func(w *Worker) { MapSeq[int, int](w, nil, func(*Worker, int) int { return 0 }) },
		"MapSeqErr":   func(w *Worker) { MapSeqErr[int, int](w, func(func(int) bool) {}, nil) },
		"NewGroup.Go": func(w *Worker) { NewGroup(w).Go(nil) },
	}
	for name, call := range outside {
		checkNilRefused(t, name, call)
	}
	for name, call := range inside {
		if err := p.Run(func(w *Worker) {
			checkNilRefused(t, name, func() { call(w) })
		}); err != nil {
			t.Errorf("%s: Run: %v", name, err)
		}
	}
	if n := p.Stats().Submitted; n != uint64(len(inside)) {
		t.Errorf("Submitted = %d, want %d (the Runs only)", n, len(inside))
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v: a nil function was queued", err)
	}
}

// checkNilRefused calls call, which passes a nil function to name, and
// fails the test unless it panics with a message of the package's about it.
func checkNilRefused(t *testing.T, name string, call func()) {
	t.Helper()
	var msg any
	func() {
		defer func() { msg = recover() }()
		call()
	}()
	s, _ := msg.(string)
	if !strings.Contains(s, "nil") || !strings.HasPrefix(s, "steal: ") {
		t.Errorf("%s(nil) panicked with %v (%T), want a message naming the nil function", name, msg, msg)
	}
}

// A nil Option is refused by New with a panic that says so, before any
// worker starts, instead of a nil dereference inside New.
func TestNewRefusesNilOption(t *testing.T) {
	before := runtime.NumGoroutine()
	var msg any
	func() {
		defer func() { msg = recover() }()
		New(WithWorkers(2), nil)
	}()
	if s, _ := msg.(string); !strings.Contains(s, "steal: New") || !strings.Contains(s, "option 1 is nil") {
		t.Fatalf("New(WithWorkers(2), nil) panicked with %v (%T), want a message naming option 1 as nil", msg, msg)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the refused New, %d before: workers started", n, before)
	}
}

// A second Wait returns a copy of the slice the first Wait returned, as
// the caller left it: the first Wait hands out the group's own slice, not
// a copy, so a caller that sorts it sorts what later Waits return.
func TestResultGroupWaitAgainCopiesFirstSlice(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := PoolResultGroup[int](nil, p)
	for i := range 3 {
		g.Go(func(*Worker) (int, error) { return i, nil })
	}
	first, _ := g.Wait()
	first[0] = 99
	second, _ := g.Wait()
	if !slices.Equal(second, []int{99, 1, 2}) {
		t.Fatalf("second Wait = %v, want the first slice as changed, [99 1 2]", second)
	}
	second[1] = -1
	if third, _ := g.Wait(); !slices.Equal(third, []int{99, 1, 2}) {
		t.Fatalf("third Wait = %v after the second's slice was changed: not a copy", third)
	}
}

// WithSchedTrace with an interval of zero or less traces nothing, as a
// zero threshold means no stall detector, and a nil out means os.Stderr.
func TestSchedTraceOddValues(t *testing.T) {
	var b syncBuffer
	p := New(WithWorkers(1), WithSchedTrace(0, &b), WithSchedTrace(-time.Second, &b))
	time.Sleep(5 * time.Millisecond)
	if err := p.Close(); err != nil || b.String() != "" {
		t.Fatalf("interval <= 0: Close = %v, traced %q, want nothing", err, b.String())
	}
	if p.trace != nil {
		t.Fatal("interval <= 0 started a tracer")
	}
	p = New(WithWorkers(1), WithSchedTrace(time.Hour, nil))
	if p.trace == nil {
		t.Fatal("a nil out started no tracer")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWithWorkersRefusesMoreThanMax: a worker count past MaxWorkers is
// refused at the call with a message naming it, instead of running out of
// memory in New (math.MaxInt) or taking minutes to start.
func TestWithWorkersRefusesMoreThanMax(t *testing.T) {
	for _, n := range []int{MaxWorkers + 1, math.MaxInt} {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			WithWorkers(n)
			return "no panic"
		}()
		if !strings.Contains(msg, "WithWorkers("+strconv.Itoa(n)+")") || !strings.Contains(msg, "MaxWorkers") {
			t.Errorf("WithWorkers(%d): %s", n, msg)
		}
	}
	var c config // MaxWorkers itself is taken; a pool of it takes seconds to start
	WithWorkers(MaxWorkers)(&c)
	if c.workers != MaxWorkers {
		t.Errorf("WithWorkers(MaxWorkers): %d workers", c.workers)
	}
}

// A zero Group, or ResultGroup, which errgroup users may write by habit,
// has no pool: every method that would run or wait for children panics
// with a message that names the constructors. Before, Go failed with a
// nil dereference inside the pool's submit path, and Wait on a zero
// ResultGroup inside awaitShared.
func TestZeroGroupRefused(t *testing.T) {
	fn := func(*Worker) error { return nil }
	rfn := func(*Worker) (int, error) { return 0, nil }
	for name, call := range map[string]func(){
		"Group.Go":             func() { var g Group; g.Go(fn) },
		"Group.TryGo":          func() { var g Group; g.TryGo(fn) },
		"Group.Wait":           func() { var g Group; g.Wait() },
		"Group.SetLimit":       func() { var g Group; g.SetLimit(1) },
		"Group.Context":        func() { var g Group; g.Context() },
		"ResultGroup.Go":       func() { var r ResultGroup[int]; r.Go(rfn) },
		"ResultGroup.TryGo":    func() { var r ResultGroup[int]; r.TryGo(rfn) },
		"ResultGroup.Wait":     func() { var r ResultGroup[int]; r.Wait() },
		"ResultGroup.SetLimit": func() { var r ResultGroup[int]; r.SetLimit(1) },
		"ResultGroup.Context":  func() { var r ResultGroup[int]; r.Context() },
	} {
		msg := panicText(call)
		if !strings.Contains(msg, "without NewGroup or Pool.Group") {
			t.Errorf("%s on a zero value: panic %q, want one naming NewGroup and Pool.Group", name, msg)
		}
	}
}

// Skipped on a zero Group counts nothing, since nothing ran, and a zero
// ResultGroup's, which the doc says is Group.Skipped, says the same; it
// failed with a nil dereference.
func TestZeroGroupSkipped(t *testing.T) {
	var g Group
	var r ResultGroup[int]
	for name, call := range map[string]func() int{
		"Group.Skipped":       g.Skipped,
		"ResultGroup.Skipped": r.Skipped,
	} {
		var n int
		if msg := panicText(func() { n = call() }); msg != "" || n != 0 {
			t.Errorf("%s on a zero value: %d, panic %q; want 0 and no panic", name, n, msg)
		}
	}
}

// panicText runs f and returns the text of its panic, or "" if none.
func panicText(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

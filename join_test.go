package steal

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func fibJoin(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	Join(w, func(w *Worker) { a = fibJoin(w, n-1) }, func(w *Worker) { b = fibJoin(w, n-2) })
	return a + b
}

func TestJoinAndFork2ComputeFib(t *testing.T) {
	for _, c := range []struct {
		name string
		fib  func(*Worker, int) int
	}{{"Join", fibJoin}, {"Fork2", fibFork}} {
		for _, workers := range []int{1, 2, 4} {
			p := New(WithWorkers(workers))
			var got int
			if err := p.Run(func(w *Worker) { got = c.fib(w, 22) }); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if got != 17711 {
				t.Fatalf("%s, W=%d: fib(22) = %d, want 17711", c.name, workers, got)
			}
		}
	}
}

func TestJoinRunsBothWhenOnePanics(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var ranB atomic.Bool
	var recovered any
	p.Run(func(w *Worker) {
		defer func() { recovered = recover() }()
		Join(w, func(*Worker) { panic("left") }, func(*Worker) { ranB.Store(true) })
	})
	if !ranB.Load() {
		t.Fatal("b did not run after a panicked")
	}
	if recovered != "left" {
		t.Fatalf("recovered %v, want the original panic value left", recovered)
	}
}

func TestJoinPanicInSecondHalf(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var recovered any
	p.Run(func(w *Worker) {
		defer func() { recovered = recover() }()
		Join(w, func(*Worker) {}, func(*Worker) { panic(errors.New("right")) })
	})
	err, ok := recovered.(error)
	if !ok || err.Error() != "right" {
		t.Fatalf("recovered %v, want the original error right", recovered)
	}
}

// TestWaitInsidePanicRecovery waits on a group from a deferred function
// that is recovering a panic: the wait must still help and complete.
// TestJoinStolenPanicIsPanicError: when a thief runs b and b panics, the
// joiner re-raises it as a *PanicError with the thief's stack.
func TestJoinStolenPanicIsPanicError(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var recovered any
	p.Run(func(w *Worker) {
		defer func() { recovered = recover() }()
		Join(w, func(*Worker) {
			// Hold a until a thief has taken b (bounded: fail, not hang).
			waitUntil(func() bool { return w.c.jobs.Len() == 0 })
		}, func(*Worker) { panic("stolen") })
	})
	pe, ok := recovered.(*PanicError)
	if !ok || pe.Value != "stolen" || !strings.Contains(string(pe.Stack), "TestJoinStolenPanicIsPanicError") {
		t.Fatalf("recovered %#v, want *PanicError(stolen) with its stack", recovered)
	}
}

func TestWaitInsidePanicRecovery(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var leaves int
	p.Run(func(w *Worker) {
		defer func() {
			if recover() == nil {
				t.Error("expected a panic")
			}
			leaves = groupTree(w, 8)
		}()
		panic("before the wait")
	})
	if leaves != 256 {
		t.Fatalf("leaves = %d, want 256", leaves)
	}
}

func TestRunOnClosedPool(t *testing.T) {
	p := New(WithWorkers(1))
	p.Close()
	if err := p.Run(func(*Worker) { t.Error("ran on a closed pool") }); err != ErrClosed {
		t.Fatalf("Run on closed pool: %v, want ErrClosed", err)
	}
}

func BenchmarkJoin(b *testing.B) {
	// fib(30) with a Join on every call and no cutoff, against plain
	// recursion, in one run.
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			fibSeq(30)
		}
	})
	b.Run("floor-closures", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fibClosures(30)
		}
	})
	b.Run("steal", func(b *testing.B) {
		p := New()
		defer p.Close()
		b.ReportAllocs()
		for b.Loop() {
			p.Run(func(w *Worker) { fibJoin(w, 30) })
		}
	})
	b.Run("steal-fork2", func(b *testing.B) {
		p := New()
		defer p.Close()
		b.ReportAllocs()
		for b.Loop() {
			p.Run(func(w *Worker) { fibFork(w, 30) })
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		for b.Loop() {
			fibGoroutines(30)
		}
	})
	b.Run("steal-1worker", func(b *testing.B) {
		p := New(WithWorkers(1))
		defer p.Close()
		b.ReportAllocs()
		for b.Loop() {
			p.Run(func(w *Worker) { fibJoin(w, 30) })
		}
	})
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibClosures is fibJoin without a pool: the two allocations per call that
// the compiler makes for Join's closures (b's closure escapes, a thief may
// run it, and the result it writes moves to the heap with it), and no
// scheduling. It is the floor for fib written with Join and closures.
func fibClosures(n int) int {
	if n < 2 {
		return n
	}
	var x, y int
	a := func() { x = fibClosures(n - 1) }
	b := func() { y = fibClosures(n - 2) }
	fibClosureSink = b // escapes, as Join's b does
	a()
	b()
	return x + y
}

var fibClosureSink func()

func fibFork(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Fork2(w, fibFork, n-1, n-2)
	return a + b
}

func TestFork2PanicRunsBoth(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var ranY atomic.Bool
	var recovered any
	p.Run(func(w *Worker) {
		defer func() { recovered = recover() }()
		Fork2(w, func(w *Worker, i int) int {
			if i == 0 {
				panic("x")
			}
			ranY.Store(true)
			return i
		}, 0, 1)
	})
	if recovered != "x" || !ranY.Load() {
		t.Fatalf("recovered %v, ranY %v", recovered, ranY.Load())
	}
}

// TestFork2AllocatesNothing: after warm-up, a fib via Fork2 on one worker
// makes no allocation per fork (the free list serves every record).
func TestFork2AllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := New(WithWorkers(1))
	defer p.Close()
	p.Run(func(w *Worker) {
		fibFork(w, 15) // warm the free list
		allocs := testing.AllocsPerRun(20, func() { fibFork(w, 15) })
		if allocs > 0 {
			t.Errorf("fib(15) via Fork2 allocates %.1f objects per run, want 0", allocs)
		}
	})
}

func fibGoroutines(n int) int {
	if n < 2 {
		return n
	}
	var a int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { a = fibGoroutines(n - 1); wg.Done() }()
	b := fibGoroutines(n - 2)
	wg.Wait()
	return a + b
}

// TestLongDequePanicRunsBoth: Join, Fork2 and Join2 called with
// offerBelow or more tasks already on the worker's deque run both halves
// themselves, without offering the second; there too, a panic in the
// first still lets the second run, and the first's panic comes out
// unchanged. One worker, so that nothing is stolen and the deque stays
// long beneath a few nested forks.
func TestLongDequePanicRunsBoth(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	forms := map[string]func(w *Worker, first, second func()){
		"Join": func(w *Worker, first, second func()) {
			Join(w, func(*Worker) { first() }, func(*Worker) { second() })
		},
		"Fork2": func(w *Worker, first, second func()) {
			Fork2(w, func(_ *Worker, f func()) int { f(); return 0 }, first, second)
		},
		"Join2": func(w *Worker, first, second func()) {
			Join2(w, func(_ *Worker, f func()) { f() }, first, second)
		},
	}
	for name, fork := range forms {
		var ranSecond, long bool
		var recovered any
		p.Run(func(w *Worker) {
			defer func() { recovered = recover() }()
			nestForks(w, offerBelow+2, func(w *Worker) {
				long = w.c.jobs.Len() >= offerBelow
				fork(w, func() { panic("first") }, func() { ranSecond = true })
			})
		})
		if !long {
			t.Fatalf("%s: the deque was short: the test no longer reaches the path it is for", name)
		}
		if recovered != "first" || !ranSecond {
			t.Errorf("%s on a long deque: recovered %v, second half ran %v; want first, true", name, recovered, ranSecond)
		}
	}
}

// nestForks calls leaf depth forks deep, each fork's second half left on
// the deque (or, once the deque is long, run after the first).
func nestForks(w *Worker, depth int, leaf func(w *Worker)) {
	if depth == 0 {
		leaf(w)
		return
	}
	Fork2(w, func(w *Worker, i int) int {
		if i == 0 {
			nestForks(w, depth-1, leaf)
		}
		return 0
	}, 0, 1)
}

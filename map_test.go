package steal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func ints(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func square(_ *Worker, x int) int { return x * x }

// TestMapOrder: Map, MapSeq and their Pool variants return f of every
// element in input order, for sizes from 0 up, on 1, 2 and 4 workers.
func TestMapOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		for _, n := range []int{0, 1, 2, 3, 100, 10_000, 200_000} {
			in := ints(n)
			want := make([]int, n)
			for i := range want {
				want[i] = i * i
			}
			var inside, insideSeq []int
			if err := p.Run(func(w *Worker) {
				inside = Map(w, in, square)
				insideSeq = MapSeq(w, slices.Values(in), square)
			}); err != nil {
				t.Fatal(err)
			}
			outside, err1 := PoolMap(context.Background(), p, in, square)
			outsideSeq, err2 := PoolMapSeq(context.Background(), p, slices.Values(in), square)
			if err1 != nil || err2 != nil {
				t.Fatalf("W=%d n=%d: %v, %v", workers, n, err1, err2)
			}
			for name, got := range map[string][]int{"Map": inside, "MapSeq": insideSeq, "PoolMap": outside, "PoolMapSeq": outsideSeq} {
				if got == nil || !slices.Equal(got, want) {
					t.Fatalf("W=%d n=%d: %s returned %d results, not f of the input in order", workers, n, name, len(got))
				}
			}
		}
		p.Close()
	}
}

// TestMapRunsInParallel: with two workers and calls that wait, both
// workers make calls, for Map and for MapSeq: the work is really shared.
// Each worker's first call waits (at most hang) until the other worker has
// made one too, so that the calls cannot all be over before a loaded
// machine schedules the second worker; the wait ends only if the second
// worker finds part of the work offered while the first call runs.
func TestMapRunsInParallel(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for _, useSeq := range []bool{false, true} {
		var seen [2]atomic.Int64
		f := func(w *Worker, x int) int {
			if seen[w.ID()].Add(1) == 1 {
				waitUntil(func() bool { return seen[0].Load() > 0 && seen[1].Load() > 0 })
			}
			time.Sleep(200 * time.Microsecond)
			return x
		}
		in := ints(200)
		if useSeq {
			PoolMapSeq(context.Background(), p, slices.Values(in), f)
		} else {
			PoolMap(context.Background(), p, in, f)
		}
		if seen[0].Load() == 0 || seen[1].Load() == 0 {
			t.Errorf("seq=%v: calls per worker %d and %d; want both to make some", useSeq, seen[0].Load(), seen[1].Load())
		}
	}
}

// TestMapNestedOneWorker: Map inside Map inside MapSeq completes on one
// worker (waits for stolen halves help instead of blocking).
func TestMapNestedOneWorker(t *testing.T) {
	for _, workers := range []int{1, 2} {
		p := New(WithWorkers(workers))
		var sum atomic.Int64
		within(t, "nested maps", func() {
			_, err := PoolMapSeq(context.Background(), p, slices.Values(ints(20)), func(w *Worker, i int) int {
				Map(w, ints(20), func(w *Worker, j int) int {
					out, _ := PoolMap(context.Background(), p, ints(20), func(*Worker, int) int { sum.Add(1); return 0 })
					return len(out)
				})
				return i
			})
			if err != nil {
				t.Error(err)
			}
		})
		p.Close()
		if sum.Load() != 20*20*20 {
			t.Fatalf("W=%d: %d calls, want 8000", workers, sum.Load())
		}
	}
}

// TestMapErrCancelsRest: on one worker, the call for element 10 fails:
// the calls before it were made, none after it, and the error says which
// element failed and how many calls were not made. The context the calls
// saw is cancelled with the error as its cause.
func TestMapErrCancelsRest(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	boom := errors.New("boom")
	for _, useSeq := range []bool{false, true} {
		var made atomic.Int64
		var seenCtx context.Context
		f := func(w *Worker, x int) (int, error) {
			made.Add(1)
			if x == 10 {
				seenCtx = w.Context()
				return 0, boom
			}
			return x + 1, nil
		}
		in := ints(1000)
		var out []int
		var err error
		if useSeq {
			out, err = PoolMapSeqErr(context.Background(), p, slices.Values(in), f)
		} else {
			out, err = PoolMapErr(context.Background(), p, in, f)
		}
		var me *MapError
		if !errors.As(err, &me) || me.Index != 10 || !errors.Is(err, boom) || !errors.Is(err, ErrSkipped) {
			t.Fatalf("seq=%v: err = %v, want a *MapError for element 10 wrapping boom and ErrSkipped", useSeq, err)
		}
		if made.Load() != 11 {
			t.Fatalf("seq=%v: %d calls made, want 11", useSeq, made.Load())
		}
		if !useSeq && me.Skipped != 1000-11 {
			t.Fatalf("Skipped = %d, want %d", me.Skipped, 1000-11)
		}
		if useSeq && (me.Skipped < 0 || me.Skipped > 1000-11) {
			t.Fatalf("MapSeqErr: Skipped = %d, want the unmade calls of what it read", me.Skipped)
		}
		if want := fmt.Sprintf("(%d call", me.Skipped); me.Skipped > 0 && !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not say %q", err, want)
		}
		if len(out) != 11+me.Skipped {
			t.Fatalf("seq=%v: %d results", useSeq, len(out))
		}
		for i := range 10 {
			if out[i] != i+1 {
				t.Fatalf("seq=%v: out[%d] = %d, want %d", useSeq, i, out[i], i+1)
			}
		}
		for i := 10; i < len(out); i++ {
			if out[i] != 0 {
				t.Fatalf("seq=%v: out[%d] = %d for a failed or unmade call, want 0", useSeq, i, out[i])
			}
		}
		if seenCtx.Err() == nil || context.Cause(seenCtx) != boom {
			t.Fatalf("seq=%v: the calls' context: err %v, cause %v; want cancelled by boom", useSeq, seenCtx.Err(), context.Cause(seenCtx))
		}
	}
}

// TestMapErrEveryCallAccounted: on four workers, with one call failing,
// every element's call is either made once or counted as not made.
func TestMapErrEveryCallAccounted(t *testing.T) {
	p := New(WithWorkers(4))
	defer p.Close()
	const n = 50_000
	for _, useSeq := range []bool{false, true} {
		calls := make([]atomic.Int32, n)
		f := func(w *Worker, x int) (int, error) {
			calls[x].Add(1)
			if x == n/3 {
				return 0, errors.New("bad element")
			}
			return x, nil
		}
		var err error
		read := n
		if useSeq {
			var yielded atomic.Int64
			seq := func(yield func(int) bool) {
				for i := range n {
					yielded.Add(1)
					if !yield(i) {
						return
					}
				}
			}
			_, err = PoolMapSeqErr(context.Background(), p, seq, f)
			read = int(yielded.Load())
		} else {
			_, err = PoolMapErr(context.Background(), p, ints(n), f)
		}
		var me *MapError
		if !errors.As(err, &me) || me.Index != n/3 {
			t.Fatalf("seq=%v: err = %v", useSeq, err)
		}
		made := 0
		for i := range calls {
			switch k := calls[i].Load(); {
			case k > 1:
				t.Fatalf("seq=%v: element %d called %d times", useSeq, i, k)
			case k == 1 && i >= read:
				t.Fatalf("seq=%v: element %d called but never read", useSeq, i)
			}
			made += int(calls[i].Load())
		}
		if made+me.Skipped != read {
			t.Fatalf("seq=%v: %d made + %d not made != %d read", useSeq, made, me.Skipped, read)
		}
		if useSeq && read == n {
			t.Logf("MapSeqErr read the whole sequence (%d) before it stopped", n)
		}
	}
}

// TestMapErrContextEnds: when the caller's context ends mid-map, the calls
// in flight see it, no further call is made, and the error is a
// *SkippedError that counts them and tells why.
func TestMapErrContextEnds(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	var made atomic.Int64
	out, err := PoolMapErr(ctx, p, ints(100), func(w *Worker, x int) (int, error) {
		made.Add(1)
		close(started)
		<-w.Context().Done()
		return 7, nil
	})
	var se *SkippedError
	if !errors.As(err, &se) || se.Count != 99 || !errors.Is(err, context.Canceled) || made.Load() != 1 {
		t.Fatalf("err = %v, %d calls made; want 99 skipped for context.Canceled after 1 call", err, made.Load())
	}
	if out[0] != 7 || out[1] != 0 {
		t.Fatalf("out[:2] = %v", out[:2])
	}
	// Done before it starts: nothing runs.
	_, err = PoolMapErr(ctx, p, ints(3), func(*Worker, int) (int, error) { made.Add(1); return 0, nil })
	if !errors.As(err, &se) || made.Load() != 1 {
		t.Fatalf("map on a done context: %v, %d calls", err, made.Load())
	}
}

// TestMapPanics: a panic in f is re-raised as a *PanicError once the other
// parts are done; in the Err variants it also stops the calls not made.
func TestMapPanics(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for _, name := range []string{"Map", "MapSeq", "MapErr"} {
		var made atomic.Int64
		var recovered any
		p.Run(func(w *Worker) {
			defer func() { recovered = recover() }()
			f := func(w *Worker, x int) int {
				made.Add(1)
				if x == 500 {
					panic("bad")
				}
				return x
			}
			switch name {
			case "Map":
				Map(w, ints(1000), f)
			case "MapSeq":
				MapSeq(w, slices.Values(ints(1000)), f)
			case "MapErr": // returns the panic: raise it for the check below
				if _, err := MapErr(w, ints(1000), func(w *Worker, x int) (int, error) { return f(w, x), nil }); err != nil {
					panic(err)
				}
			}
		})
		pe, ok := recovered.(*PanicError)
		if !ok || pe.Value != "bad" {
			t.Fatalf("%s: recovered %#v, want *PanicError(bad)", name, recovered)
		}
		if made.Load() < 501 && name != "MapErr" {
			t.Fatalf("%s: only %d calls made", name, made.Load())
		}
	}
	// On one worker, MapErr makes no call after the panic.
	q := New(WithWorkers(1))
	defer q.Close()
	var made atomic.Int64
	func() {
		defer func() { recover() }()
		PoolMapErr(context.Background(), q, ints(100), func(w *Worker, x int) (int, error) {
			if made.Add(1); x == 5 {
				panic("bad")
			}
			return x, nil
		})
	}()
	if made.Load() != 6 {
		t.Fatalf("MapErr made %d calls, want 6 (none after the panic)", made.Load())
	}
}

// TestMapSeqPanicInSeq: a sequence that panics after some runs were offered
// to thieves: the panic goes on unchanged, and the offered runs have
// finished by then (nothing is left running on the pool).
func TestMapSeqPanicInSeq(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var active atomic.Int64
	seq := func(yield func(int) bool) {
		for i := range 200 {
			if !yield(i) {
				return
			}
		}
		panic("seq broke")
	}
	var recovered any
	var activeAtPanic int64 = -1
	p.Run(func(w *Worker) {
		defer func() { recovered = recover(); activeAtPanic = active.Load() }()
		MapSeq(w, seq, func(w *Worker, x int) int {
			active.Add(1)
			time.Sleep(50 * time.Microsecond)
			active.Add(-1)
			return x
		})
	})
	if recovered != "seq broke" || activeAtPanic != 0 {
		t.Fatalf("recovered %v with %d calls still running; want the seq's panic after all calls", recovered, activeAtPanic)
	}
}

// TestMapSeqReadsLazily: MapSeq starts calls before the sequence ends, and
// a slow sequence is not read far ahead of the calls.
func TestMapSeqReadsLazily(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var read atomic.Int64
	var maxAhead int64
	var mu sync.Mutex
	seq := func(yield func(int) bool) {
		for i := range 50 {
			read.Add(1)
			time.Sleep(100 * time.Microsecond) // slower than chunkTime
			if !yield(i) {
				return
			}
		}
	}
	out, err := PoolMapSeq(context.Background(), p, iter.Seq[int](seq), func(_ *Worker, x int) int {
		mu.Lock()
		maxAhead = max(maxAhead, read.Load()-int64(x))
		mu.Unlock()
		return x
	})
	if err != nil || len(out) != 50 {
		t.Fatalf("%d results, %v", len(out), err)
	}
	if maxAhead > 2 {
		t.Fatalf("read %d elements ahead of the calls; a slow sequence should be mapped as it comes", maxAhead)
	}
}

// TestPoolMapClosedAndInside: on a closed pool the Pool variants run
// nothing and return ErrClosed; from a task of a one-worker pool they map
// on the calling worker instead of waiting for the pool.
func TestPoolMapClosedAndInside(t *testing.T) {
	p := New(WithWorkers(1))
	within(t, "PoolMap from a task", func() {
		p.Run(func(w *Worker) {
			out, err := PoolMap(context.Background(), p, ints(100), square)
			if err != nil || len(out) != 100 || out[9] != 81 {
				t.Errorf("PoolMap from a task: %d results, %v", len(out), err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out2, err := PoolMapSeqErr(ctx, p, slices.Values(ints(10)), func(w *Worker, x int) (int, error) {
				if w.Context().Done() == nil {
					return 0, errors.New("the call does not see ctx")
				}
				return x, nil
			})
			if err != nil || len(out2) != 10 {
				t.Errorf("PoolMapSeqErr from a task: %v, %v", out2, err)
			}
		})
	})
	p.Close()
	called := false
	f := func(*Worker, int) int { called = true; return 0 }
	_, err1 := PoolMap(context.Background(), p, ints(3), f)
	_, err2 := PoolMapSeqErr(context.Background(), p, slices.Values(ints(3)),
		func(*Worker, int) (int, error) { called = true; return 0, nil })
	if !errors.Is(err1, ErrClosed) || !errors.Is(err2, ErrClosed) || called {
		t.Fatalf("on a closed pool: %v, %v, called %v; want ErrClosed and no call", err1, err2, called)
	}
}

// spin does about n iterations of dependent arithmetic: work that is not
// memory traffic.
//
//go:noinline
func spin(x, n int) int {
	for range n {
		x = x*1103515245 + 12345
	}
	return x
}

// BenchmarkMap maps ints through a cheap function (1,000,000 of them) and
// through one that computes for about a microsecond (50,000): a plain
// loop, Map, MapSeq (and, for a sequence, slices.Collect then Map) from a
// task, and PoolMap and PoolMapErr from outside.
func BenchmarkMap(b *testing.B) {
	p := New()
	defer p.Close()
	for _, c := range []struct {
		name string
		n    int
		work int
	}{{"cheap", 1_000_000, 0}, {"1us", 50_000, 900}} {
		in := ints(c.n)
		f := func(_ *Worker, x int) int { return spin(x, c.work) }
		fe := func(_ *Worker, x int) (int, error) { return spin(x, c.work), nil }
		b.Run(c.name+"/loop", func(b *testing.B) {
			for b.Loop() {
				out := make([]int, len(in))
				for i, x := range in {
					out[i] = f(nil, x)
				}
			}
		})
		b.Run(c.name+"/Map", func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { Map(w, in, f) })
			}
		})
		b.Run(c.name+"/MapSeq", func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { MapSeq(w, slices.Values(in), f) })
			}
		})
		b.Run(c.name+"/Collect+Map", func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { Map(w, slices.Collect(slices.Values(in)), f) })
			}
		})
		b.Run(c.name+"/PoolMap", func(b *testing.B) {
			for b.Loop() {
				PoolMap(context.Background(), p, in, f)
			}
		})
		b.Run(c.name+"/PoolMapErr", func(b *testing.B) {
			for b.Loop() {
				PoolMapErr(context.Background(), p, in, fe)
			}
		})
	}
}

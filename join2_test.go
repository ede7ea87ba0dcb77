package steal

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// quicksortJoin2 sorts s with Join2 on every split, no cutoff.
func quicksortJoin2(w *Worker, s []int) {
	if len(s) < 2 {
		return
	}
	p := partition(s)
	Join2(w, quicksortJoin2, s[:p], s[p+1:])
}

// TestJoin2Quicksort: a quicksort with Join2 sorts, on 1, 2 and 4 workers.
func TestJoin2Quicksort(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		s := make([]int, 50_000)
		for i := range s {
			s[i] = rand.IntN(1 << 30)
		}
		want := slices.Sorted(slices.Values(s))
		p.Run(func(w *Worker) { quicksortJoin2(w, s) })
		p.Close()
		if !slices.Equal(s, want) {
			t.Fatalf("W=%d: not sorted", workers)
		}
	}
}

// TestJoin2AllocatesNothing: after warm-up, a quicksort via Join2 on one
// worker makes no allocation per fork.
func TestJoin2AllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := New(WithWorkers(1))
	defer p.Close()
	s := make([]int, 4096)
	p.Run(func(w *Worker) {
		quicksortJoin2(w, s) // warm the free list
		allocs := testing.AllocsPerRun(20, func() {
			for i := range s {
				s[i] = len(s) - i
			}
			quicksortJoin2(w, s)
		})
		if allocs > 0 {
			t.Errorf("quicksort of 4096 via Join2 allocates %.1f objects per run, want 0", allocs)
		}
	})
}

// TestJoin2BothRunOnPanic: a panic in f(w, x) goes on unchanged, after
// f(w, y) has run.
func TestJoin2BothRunOnPanic(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var ranY atomic.Bool
	var recovered any
	p.Run(func(w *Worker) {
		defer func() { recovered = recover() }()
		Join2(w, func(_ *Worker, x int) {
			if x == 0 {
				panic("x")
			}
			ranY.Store(true)
		}, 0, 1)
	})
	if recovered != "x" || !ranY.Load() {
		t.Fatalf("recovered %v, ranY %v; want x's panic after y ran", recovered, ranY.Load())
	}
}

// treeJoin2 and treeFork2 fork a binary tree of the given depth with no
// work at the nodes: what is timed is the fork itself.
func treeJoin2(w *Worker, depth int) {
	if depth > 0 {
		Join2(w, treeJoin2, depth-1, depth-1)
	}
}

func treeFork2(w *Worker, depth int) struct{} {
	if depth > 0 {
		Fork2(w, treeFork2, depth-1, depth-1)
	}
	return struct{}{}
}

// BenchmarkJoin2 forks 2^20 - 1 times with Join2, and with Fork2 returning
// struct{}, for the cost per fork of each (ns/op / 1,048,575).
func BenchmarkJoin2(b *testing.B) {
	p := New()
	defer p.Close()
	b.Run("Join2", func(b *testing.B) {
		for b.Loop() {
			p.Run(func(w *Worker) { treeJoin2(w, 20) })
		}
	})
	b.Run("Fork2-struct", func(b *testing.B) {
		for b.Loop() {
			p.Run(func(w *Worker) { treeFork2(w, 20) })
		}
	})
}

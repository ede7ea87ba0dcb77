package main

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/worksteal/steal"
)

// sort: mergesort of param random ints; every implementation forks down to
// sortCutoff (2048) elements and sorts those with slices.Sort, and merges
// sequentially on the way up.
var sortWorkload = &Workload{
	Name:    "sort",
	About:   "parallel mergesort of param ints, cutoff 2048",
	Default: 10_000_000, Tiny: 100_000, Timeout: 60 * time.Second,
	Tasks: sortForks,
	Setup: func(r *Run) {
		src := sortInput(r.Param)
		r.Ints = slices.Clone(src)
	},
	Check: func(r *Run, got int64) error {
		if !slices.IsSorted(r.Ints) {
			return errors.New("wrong result: not sorted")
		}
		// Compare with the input sorted, element by element: a sum
		// check passes a sort that loses one element and duplicates
		// another with the same total. The sorted copy is garbage when
		// the check returns, so the live heap of the timed runs (and
		// with it the GC's pace) is what it was.
		want := slices.Clone(sortInput(r.Param))
		slices.Sort(want)
		if !slices.Equal(r.Ints, want) {
			return errors.New("wrong result: elements changed")
		}
		return nil
	},
	Impls: []Impl{
		{"steal", func(r *Run) (int64, error) {
			tmp := make([]int, len(r.Ints))
			return 0, runSteal(r, func(w *steal.Worker) { sortSteal(w, span{r.Ints, tmp}) })
		}},
		{"steal-join", func(r *Run) (int64, error) {
			tmp := make([]int, len(r.Ints))
			return 0, runSteal(r, func(w *steal.Worker) { sortStealJoin(w, r.Ints, tmp) })
		}},
		{"goroutines", sortWith(sortGoroutines)},
		{"errgroup", sortWith(sortErrgroup)},
		{"conc", sortWith(sortConc)},
		{"sequential", sortWith(sortSeq)},
	},
}

func sortWith(f func(a, tmp []int)) RunFunc {
	return func(r *Run) (int64, error) {
		tmp := make([]int, len(r.Ints))
		r.Start()
		f(r.Ints, tmp)
		r.Stop()
		return 0, nil
	}
}

// sortForks is the number of forks the recursion makes for n elements.
func sortForks(n int) int64 {
	if n <= sortCutoff {
		return 0
	}
	return 1 + sortForks(n/2) + sortForks(n-n/2)
}

var (
	sortMu   sync.Mutex
	sortMemo = map[int][]int{}
)

// sortInput is n pseudo-random ints from a fixed seed.
func sortInput(n int) []int {
	sortMu.Lock()
	defer sortMu.Unlock()
	d, ok := sortMemo[n]
	if !ok {
		rng := rand.New(rand.NewPCG(1, 2))
		d = make([]int, n)
		for i := range d {
			d[i] = rng.IntN(1 << 30)
		}
		sortMemo[n] = d
	}
	return d
}

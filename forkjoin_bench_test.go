package steal

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// sortCutoff is where the parallel sorts below switch to slices.Sort: the
// same for the steal and goroutine versions, so the comparison is of
// scheduling, not of leaf sorting.
const sortCutoff = 2048

func randomInts(n int) []int {
	r := rand.New(rand.NewPCG(1, 2))
	s := make([]int, n)
	for i := range s {
		s[i] = r.Int()
	}
	return s
}

// quicksortSteal sorts s with Fork2 on the two partitions.
func quicksortSteal(w *Worker, s []int) struct{} {
	if len(s) <= sortCutoff {
		slices.Sort(s)
		return struct{}{}
	}
	p := partition(s)
	Fork2(w, quicksortSteal, s[:p], s[p+1:])
	return struct{}{}
}

func quicksortGoroutines(s []int) {
	if len(s) <= sortCutoff {
		slices.Sort(s)
		return
	}
	p := partition(s)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { quicksortGoroutines(s[:p]); wg.Done() }()
	quicksortGoroutines(s[p+1:])
	wg.Wait()
}

// partition is Lomuto's with a median-of-three pivot; it returns the
// pivot's final index.
func partition(s []int) int {
	hi := len(s) - 1
	mid := hi / 2
	if s[mid] < s[0] {
		s[mid], s[0] = s[0], s[mid]
	}
	if s[hi] < s[0] {
		s[hi], s[0] = s[0], s[hi]
	}
	if s[mid] < s[hi] {
		s[mid], s[hi] = s[hi], s[mid]
	}
	pivot, i := s[hi], 0
	for j := 0; j < hi; j++ {
		if s[j] < pivot {
			s[i], s[j] = s[j], s[i]
			i++
		}
	}
	s[i], s[hi] = s[hi], s[i]
	return i
}

type mergeJob struct{ s, tmp []int }

// mergesortSteal sorts j.s using j.tmp as scratch, Fork2 on the halves.
func mergesortSteal(w *Worker, j mergeJob) struct{} {
	if len(j.s) <= sortCutoff {
		slices.Sort(j.s)
		return struct{}{}
	}
	m := len(j.s) / 2
	Fork2(w, mergesortSteal, mergeJob{j.s[:m], j.tmp[:m]}, mergeJob{j.s[m:], j.tmp[m:]})
	merge(j.s, m, j.tmp)
	return struct{}{}
}

func mergesortGoroutines(s, tmp []int) {
	if len(s) <= sortCutoff {
		slices.Sort(s)
		return
	}
	m := len(s) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { mergesortGoroutines(s[:m], tmp[:m]); wg.Done() }()
	mergesortGoroutines(s[m:], tmp[m:])
	wg.Wait()
	merge(s, m, tmp)
}

// merge merges the sorted s[:m] and s[m:] through tmp.
func merge(s []int, m int, tmp []int) {
	copy(tmp, s)
	i, j, k := 0, m, 0
	for i < m && j < len(s) {
		if tmp[i] <= tmp[j] {
			s[k] = tmp[i]
			i++
		} else {
			s[k] = tmp[j]
			j++
		}
		k++
	}
	k += copy(s[k:], tmp[i:m])
	copy(s[k:], tmp[j:len(s)])
}

func TestParallelSortsSort(t *testing.T) {
	p := New(WithWorkers(4))
	defer p.Close()
	for _, n := range []int{0, 1, 100, 50_000} {
		a, b := randomInts(n), randomInts(n)
		p.Run(func(w *Worker) { quicksortSteal(w, a) })
		p.Run(func(w *Worker) { mergesortSteal(w, mergeJob{b, make([]int, n)}) })
		if !slices.IsSorted(a) || !slices.IsSorted(b) {
			t.Fatalf("n=%d: not sorted", n)
		}
	}
}

// BenchmarkSort10M sorts 10,000,000 ints: slices.Sort, then quicksort and
// mergesort on the pool and with a goroutine per split.
func BenchmarkSort10M(b *testing.B) {
	const n = 10_000_000
	src := randomInts(n)
	s, tmp := make([]int, n), make([]int, n)
	p := New()
	defer p.Close()
	run := func(name string, sort func()) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				copy(s, src)
				b.StartTimer()
				sort()
			}
			if !slices.IsSorted(s) {
				b.Fatal("not sorted")
			}
		})
	}
	run("slices.Sort", func() { slices.Sort(s) })
	run("quicksort-steal", func() { p.Run(func(w *Worker) { quicksortSteal(w, s) }) })
	run("quicksort-goroutines", func() { quicksortGoroutines(s) })
	run("mergesort-steal", func() { p.Run(func(w *Worker) { mergesortSteal(w, mergeJob{s, tmp}) }) })
	run("mergesort-goroutines", func() { mergesortGoroutines(s, tmp) })
}

// BenchmarkSum100M sums 100,000,000 int32s: a loop, For on the pool
// (ForRange, so the body sees sub-ranges), and GOMAXPROCS goroutines each
// summing one hand-cut chunk.
func BenchmarkSum100M(b *testing.B) {
	const n = 100_000_000
	data := make([]int32, n)
	for i := range data {
		data[i] = int32(i % 7)
	}
	want := sumInt32(data)
	check := func(b *testing.B, got int64) {
		if got != want {
			b.Fatalf("sum %d, want %d", got, want)
		}
	}
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			check(b, sumInt32(data))
		}
	})
	p := New()
	defer p.Close()
	b.Run("steal-ForRange", func(b *testing.B) {
		for b.Loop() {
			var sum atomic.Int64
			p.ForRange(0, n, func(w *Worker, lo, hi int) {
				sum.Add(sumInt32(data[lo:hi]))
			})
			check(b, sum.Load())
		}
	})
	b.Run("goroutines-chunked", func(b *testing.B) {
		for b.Loop() {
			workers := runtime.GOMAXPROCS(0)
			parts := make([]int64, workers)
			var wg sync.WaitGroup
			for g := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					parts[g] = sumInt32(data[g*n/workers : (g+1)*n/workers])
				}()
			}
			wg.Wait()
			var sum int64
			for _, v := range parts {
				sum += v
			}
			check(b, sum)
		}
	})
}

// sumInt32 is the one loop every variant of BenchmarkSum100M runs.
//
//go:noinline
func sumInt32(s []int32) int64 {
	var sum int64
	for _, v := range s {
		sum += int64(v)
	}
	return sum
}

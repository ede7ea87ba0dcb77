package steal

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// Ranges at the ends of int: hi-lo does not fit in an int once the range
// holds more than math.MaxInt indices, and lo+chunk overflows near
// math.MaxInt. ForRange must still hand its body only non-empty sub-ranges
// inside [lo, hi) that cover every index exactly once.

// intEdges are values where int arithmetic wraps, and a few tame ones
// (±1<<32 where int has 64 bits).
var intEdges = []int{
	math.MinInt, math.MinInt + 1, math.MinInt + 2, math.MinInt + 3,
	math.MinInt / 2, math.MinInt >> 31, -3, -2, -1, 0, 1, 2, 3, math.MaxInt>>31 + 1, math.MaxInt / 2,
	math.MaxInt - 3, math.MaxInt - 2, math.MaxInt - 1, math.MaxInt,
}

func bigInt(x int) *big.Int { return big.NewInt(int64(x)) }

// bigLen is hi-lo computed without overflow.
func bigLen(lo, hi int) *big.Int { return new(big.Int).Sub(bigInt(hi), bigInt(lo)) }

// TestForRangeSplitAndChunkArithmetic checks the two computations ForRange
// makes on indices, for every lo <= hi drawn from intEdges, against
// arbitrary-precision arithmetic.
func TestForRangeSplitAndChunkArithmetic(t *testing.T) {
	two := big.NewInt(2)
	for _, lo := range intEdges {
		if t.Failed() {
			return // the first lo that fails shows the fault; all of them flood
		}
		for _, hi := range intEdges {
			if lo > hi {
				continue
			}
			n := bigLen(lo, hi)
			mid, ok := splitAt(lo, hi)
			if want := n.Cmp(two) >= 0; ok != want {
				t.Errorf("splitAt(%d, %d) ok = %v, want %v (%v indices)", lo, hi, ok, want, n)
			} else if ok {
				wantMid := new(big.Int).Add(bigInt(lo), new(big.Int).Rsh(n, 1))
				if bigInt(mid).Cmp(wantMid) != 0 {
					t.Errorf("splitAt(%d, %d) = %d, want %v (both halves non-empty, the upper one no smaller)",
						lo, hi, mid, wantMid)
				}
			}
			if lo == hi {
				continue
			}
			for _, chunk := range []int{1, 2, 3, 64, maxChunk} {
				end := chunkEnd(lo, hi, chunk)
				want := new(big.Int).Add(bigInt(lo), n)
				if c := bigInt(chunk); c.Cmp(n) < 0 {
					want = new(big.Int).Add(bigInt(lo), c)
				}
				if bigInt(end).Cmp(want) != 0 {
					t.Errorf("chunkEnd(%d, %d, %d) = %d, want %v", lo, hi, chunk, end, want)
				}
			}
		}
	}
}

// errOutside stops a loop whose body was handed an index or sub-range
// outside [lo, hi): with wrapped arithmetic the loop would otherwise run on
// over most of the int range.
var errOutside = errors.New("sub-range outside the loop's range")

// runLoop runs fn on p and returns the value its panic, if any, started
// with, unwrapped from the PanicErrors that carried it out of the pool.
func runLoop(p *Pool, fn func(w *Worker)) (panicked any) {
	defer func() {
		panicked = recover()
		for {
			pe, ok := panicked.(*PanicError)
			if !ok {
				return
			}
			panicked = pe.Value
		}
	}()
	if pe, ok := p.Run(fn).(*PanicError); ok { // Run returns a panic: raise it for the above
		panic(pe)
	}
	return nil
}

// subRanges records the sub-ranges a ForRange body is handed.
type subRanges struct {
	mu     sync.Mutex
	lo, hi int
	got    [][2]int
}

// add records [a, b) and panics with errOutside if it is empty or not
// inside [lo, hi).
func (s *subRanges) add(a, b int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, [2]int{a, b})
	if !(s.lo <= a && a < b && b <= s.hi) {
		panic(fmt.Errorf("[%d, %d) in [%d, %d): %w", a, b, s.lo, s.hi, errOutside))
	}
	return len(s.got)
}

// disjoint sorts the sub-ranges and reports the first two that overlap.
func (s *subRanges) disjoint() error {
	slices.SortFunc(s.got, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
	for i := 1; i < len(s.got); i++ {
		if s.got[i][0] < s.got[i-1][1] {
			return fmt.Errorf("sub-ranges %v and %v overlap", s.got[i-1], s.got[i])
		}
	}
	return nil
}

// edgeRanges are small ranges at and near the ends of int.
var edgeRanges = [][2]int{
	{math.MaxInt - 10, math.MaxInt}, {math.MinInt, math.MinInt + 10},
	{math.MaxInt - 1, math.MaxInt}, {math.MinInt, math.MinInt + 1},
	{math.MaxInt - 300, math.MaxInt}, {math.MinInt, math.MinInt + 300},
	{math.MaxInt, math.MaxInt}, {math.MinInt, math.MinInt}, {-5, 5},
}

// TestForRangeExactNearIntLimits: every index of a small range at either
// end of int is handed to the body exactly once, by For and by ForRange.
func TestForRangeExactNearIntLimits(t *testing.T) {
	for _, workers := range []int{1, 4} {
		p := New(WithWorkers(workers))
		for _, r := range edgeRanges {
			lo, hi := r[0], r[1]
			s := &subRanges{lo: lo, hi: hi}
			if pv := runLoop(p, func(w *Worker) {
				ForRange(w, lo, hi, func(_ *Worker, a, b int) { s.add(a, b) })
			}); pv != nil {
				t.Errorf("workers=%d ForRange [%d, %d): %v", workers, lo, hi, pv)
				continue
			}
			if err := s.disjoint(); err != nil {
				t.Errorf("workers=%d ForRange [%d, %d): %v", workers, lo, hi, err)
			}
			covered := new(big.Int)
			for _, g := range s.got {
				covered.Add(covered, bigLen(g[0], g[1]))
			}
			if covered.Cmp(bigLen(lo, hi)) != 0 {
				t.Errorf("workers=%d ForRange [%d, %d): sub-ranges cover %v indices, want %v",
					workers, lo, hi, covered, bigLen(lo, hi))
			}
			checkForEachIndexOnce(t, p, workers, lo, hi)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
}

// checkForEachIndexOnce runs For over [lo, hi), a range of at most a few
// hundred indices, and checks that each index came exactly once.
func checkForEachIndexOnce(t *testing.T, p *Pool, workers, lo, hi int) {
	t.Helper()
	var mu sync.Mutex
	seen := map[int]int{}
	pv := runLoop(p, func(w *Worker) {
		For(w, lo, hi, func(_ *Worker, i int) {
			if i < lo || i >= hi {
				panic(fmt.Errorf("index %d: %w", i, errOutside))
			}
			mu.Lock()
			seen[i]++
			mu.Unlock()
		})
	})
	if pv != nil {
		t.Errorf("workers=%d For [%d, %d): %v", workers, lo, hi, pv)
		return
	}
	if want := bigLen(lo, hi); !want.IsInt64() || int64(len(seen)) != want.Int64() {
		t.Errorf("workers=%d For [%d, %d): %d distinct indices, want %v", workers, lo, hi, len(seen), want)
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("workers=%d For [%d, %d): index %d came %d times", workers, lo, hi, i, c)
		}
	}
}

// errEnough stops a loop over a range too large to finish.
var errEnough = errors.New("enough sub-ranges checked")

// TestForRangeHugeRanges: ranges of more than math.MaxInt indices. The
// body records its sub-ranges and stops the loop after a few hundred; every
// sub-range must be non-empty and inside [lo, hi), no two may overlap, and
// with 4 workers the range must have been split at its midpoint: the upper
// half starts there, whether a thief took it or the owner ran it after the
// stop.
func TestForRangeHugeRanges(t *testing.T) {
	const calls = 300
	for _, workers := range []int{1, 4} {
		p := New(WithWorkers(workers))
		for _, r := range [][2]int{
			{math.MinInt, math.MaxInt}, {math.MinInt, 0}, {-1, math.MaxInt},
			{math.MinInt + 1, math.MaxInt}, {math.MinInt / 2, math.MaxInt},
		} {
			lo, hi := r[0], r[1]
			s := &subRanges{lo: lo, hi: hi}
			pv := runLoop(p, func(w *Worker) {
				ForRange(w, lo, hi, func(_ *Worker, a, b int) {
					if s.add(a, b) >= calls {
						panic(errEnough)
					}
				})
			})
			if pv != errEnough {
				t.Errorf("workers=%d [%d, %d): loop ended with %v, want the test's stop", workers, lo, hi, pv)
				continue
			}
			if err := s.disjoint(); err != nil {
				t.Errorf("workers=%d [%d, %d): %v", workers, lo, hi, err)
			}
			mid := new(big.Int).Add(bigInt(lo), new(big.Int).Rsh(bigLen(lo, hi), 1)).Int64()
			split := slices.ContainsFunc(s.got, func(g [2]int) bool { return int64(g[0]) == mid })
			if workers > 1 && !split {
				t.Errorf("workers=%d [%d, %d): no sub-range starts at the midpoint %d: the range was not split",
					workers, lo, hi, mid)
			}
			if len(s.got) > 100*calls {
				t.Errorf("workers=%d [%d, %d): %d body calls after a stop at %d", workers, lo, hi, len(s.got), calls)
			}
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestForAllocatesNothing: For and ForRange make no allocation per call
// when no thief takes a part: on one worker, and on two while the other is
// busy (their splits come back and their records are reused).
func TestForAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var sink atomic.Int64
	each := func(_ *Worker, i int) { sink.Add(int64(i)) }
	ranges := func(_ *Worker, lo, hi int) { sink.Add(int64(hi - lo)) }
	check := func(t *testing.T, w *Worker) {
		For(w, 0, 1000, each) // warm the free lists
		ForRange(w, 0, 1000, ranges)
		if a := testing.AllocsPerRun(20, func() { For(w, 0, 1000, each) }); a > 0 {
			t.Errorf("For allocates %.1f objects per call, want 0", a)
		}
		if a := testing.AllocsPerRun(20, func() { ForRange(w, 0, 1000, ranges) }); a > 0 {
			t.Errorf("ForRange allocates %.1f objects per call, want 0", a)
		}
	}
	t.Run("one worker", func(t *testing.T) {
		p := New(WithWorkers(1))
		defer p.Close()
		p.Run(func(w *Worker) { check(t, w) })
	})
	t.Run("other worker busy", func(t *testing.T) {
		p := New(WithWorkers(2))
		defer p.Close()
		release, busy := make(chan struct{}), make(chan struct{})
		p.Go(func() { close(busy); <-release })
		<-busy
		p.Run(func(w *Worker) { check(t, w) })
		close(release)
	})
}

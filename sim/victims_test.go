package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/worksteal/steal/coord"
)

func TestVictimsMostLoadedTracksTheMaximum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const w = 37 // not a power of two: exercises the padding
	v := newVictims(w, coord.MostLoaded)
	if v.choose(r) != -1 {
		t.Fatal("empty cluster offered a victim")
	}
	for step := range 5000 {
		v.set(int32(r.IntN(w)), r.IntN(6))
		best := int32(-1)
		for i, n := range v.lens {
			if n > 0 && (best < 0 || n > v.lens[best]) {
				best = int32(i)
			}
		}
		if got := v.choose(r); got != best {
			t.Fatalf("step %d: choose = %d, want %d (lens %v)", step, got, best, v.lens)
		}
	}
}

func TestVictimsRandomOnlyOffersBusyWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range []coord.VictimPolicy{coord.Random, coord.BestOfTwo} {
		v := newVictims(10, p)
		v.set(3, 2)
		v.set(7, 1)
		v.set(5, 4)
		v.set(5, 0)
		seen := map[int32]bool{}
		for range 200 {
			w := v.choose(r)
			if w != 3 && w != 7 {
				t.Fatalf("%v chose idle worker %d", p, w)
			}
			seen[w] = true
		}
		if p == coord.Random && len(seen) != 2 {
			t.Fatalf("random never chose one of the busy workers: %v", seen)
		}
		if p == coord.BestOfTwo && !seen[3] {
			t.Fatal("best of two never chose the longer deque")
		}
	}
}

// TestVictimsBestOfTwoDrawsTwoDistinct: best of two compares two distinct
// workers, as coord.BestOfTwo does, so with two busy workers it always
// takes the longer deque (the lower index on a tie). Drawing the same
// worker twice would pick the shorter one a quarter of the time.
func TestVictimsBestOfTwoDrawsTwoDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	v := newVictims(6, coord.BestOfTwo)
	v.set(4, 1)
	v.set(1, 9)
	for i := range 200 {
		if got := v.choose(r); got != 1 {
			t.Fatalf("draw %d: chose worker %d (length %d) over worker 1 (length 9)", i, got, v.lens[got])
		}
	}
	v.set(4, 9) // a tie goes to the lower index
	for i := range 200 {
		if got := v.choose(r); got != 1 {
			t.Fatalf("tie, draw %d: chose worker %d, want 1", i, got)
		}
	}
}

package sim

import (
	"math"
	"testing"
)

func TestWorkSumsWithoutWrapping(t *testing.T) {
	var w work
	for range 4 {
		w.add(maxDuration)
	}
	w.add(-5) // a negative cost counts as none
	if w.hi != 1 || w.lo != math.MaxUint64-3 {
		t.Fatalf("sum %+v, want 4 × (2^63 - 1) = 2^65 - 4", w)
	}
	if w.duration() != maxDuration {
		t.Fatalf("duration %v, want saturated", w.duration())
	}
	if got, want := w.nanos(), 4*float64(maxDuration); got != want {
		t.Fatalf("nanos %v, want %v", got, want)
	}
	for _, tc := range []struct {
		w    work
		n    uint64
		want int64
	}{
		{work{lo: 10}, 3, 4},            // rounded up
		{work{lo: 9}, 3, 3},             // exact
		{work{hi: 1}, 4, 1 << 62},       // 2^64 / 4
		{work{hi: 1}, 2, math.MaxInt64}, // 2^63: saturated
		{work{hi: 3}, 3, math.MaxInt64}, // quotient beyond 64 bits
		{work{lo: math.MaxInt64}, 1, math.MaxInt64},
	} {
		if got := tc.w.ceilDiv(tc.n); int64(got) != tc.want {
			t.Errorf("%+v / %d = %d, want %d", tc.w, tc.n, int64(got), tc.want)
		}
	}
}

func TestAfterSaturates(t *testing.T) {
	if after(5, 7) != 12 || after(math.MaxInt64-1, 2) != math.MaxInt64 || after(1, math.MaxInt64) != math.MaxInt64 {
		t.Fatal("after does not saturate at the end of time")
	}
}

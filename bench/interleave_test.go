package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestInterleave checks the order of the runs (round-robin, shifted by one
// each round, workload by workload), that each child is asked for one
// measured run, that a failed implementation is not run again, and how the
// rounds combine.
func TestInterleave(t *testing.T) {
	var specs []Spec
	for _, im := range []string{"a", "b", "c"} {
		specs = append(specs, Spec{Workload: "w1", Impl: im, Runs: 3})
	}
	specs = append(specs, Spec{Workload: "w2", Impl: "a", Runs: 3})
	var calls []string
	times := map[string][]int64{"w1/a": {30, 10, 20}, "w1/c": {5, 7, 6}, "w2/a": {1, 2, 3}}
	run := func(s Spec) Result {
		if s.Runs != 1 {
			t.Errorf("%s/%s: child asked for %d runs, want 1", s.Workload, s.Impl, s.Runs)
		}
		key := s.Workload + "/" + s.Impl
		round := 0
		for _, c := range calls {
			if c == key {
				round++
			}
		}
		calls = append(calls, key)
		if key == "w1/b" {
			return Result{Workload: s.Workload, Impl: s.Impl, Error: "wrong result"}
		}
		return Result{Workload: s.Workload, Impl: s.Impl, OK: true, Runs: 1, MedianNs: times[key][round],
			AllocsPerOp: float64(10 * (round + 1))}
	}
	var finished []string
	rs := interleave(specs, run, func(rs []Result) { finished = append(finished, rs[0].Workload) })

	want := "w1/a w1/b w1/c w1/c w1/a w1/c w1/a w2/a w2/a w2/a"
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("runs in order\n%s\nwant\n%s", got, want)
	}
	if !slices.Equal(finished, []string{"w1", "w2"}) {
		t.Errorf("done called for %v, want [w1 w2]", finished)
	}
	got := make(map[string]string)
	for _, r := range rs {
		got[r.Workload+"/"+r.Impl] = fmt.Sprintf("ok=%v runs=%d med=%d min=%d max=%d allocs=%.0f err=%q",
			r.OK, r.Runs, r.MedianNs, r.MinNs, r.MaxNs, r.AllocsPerOp, r.Error)
	}
	for key, w := range map[string]string{
		"w1/a": `ok=true runs=3 med=20 min=10 max=30 allocs=20 err=""`,
		"w1/b": `ok=false runs=3 med=0 min=0 max=0 allocs=0 err="wrong result"`,
		"w1/c": `ok=true runs=3 med=6 min=5 max=7 allocs=20 err=""`,
		"w2/a": `ok=true runs=3 med=2 min=1 max=3 allocs=20 err=""`,
	} {
		if got[key] != w {
			t.Errorf("%s: %s\nwant %s", key, got[key], w)
		}
	}
}

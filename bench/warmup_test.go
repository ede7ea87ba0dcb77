package main

import (
	"testing"
	"time"
)

// warmupCalls counts the calls of the test-calls workload's one impl.
var warmupCalls int

func init() {
	workloads = append(workloads, &Workload{
		Name: "test-calls", Default: 1, Tiny: 1, Timeout: time.Second,
		Tasks: func(int) int64 { return 1 },
		Impls: []Impl{{"sequential", func(*Run) (int64, error) { warmupCalls++; return 0, nil }}},
	})
}

// TestMeasureWarmup: Warmup untimed runs come before the timed ones, and
// zero means one.
func TestMeasureWarmup(t *testing.T) {
	for _, c := range []struct{ warmup, runs, calls int }{{0, 2, 3}, {1, 2, 3}, {3, 2, 5}} {
		warmupCalls = 0
		r := measure(Spec{Workload: "test-calls", Impl: "sequential", Param: 1, Runs: c.runs, Warmup: c.warmup, Timeout: time.Second})
		if !r.OK || r.Runs != c.runs || warmupCalls != c.calls {
			t.Errorf("warmup %d, runs %d: ok=%v runs=%d, %d calls, want %d", c.warmup, c.runs, r.OK, r.Runs, warmupCalls, c.calls)
		}
	}
}

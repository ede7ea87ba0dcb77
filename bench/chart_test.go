package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// chartResults are a few results of every kind the charts draw: times,
// idle CPU, bytes per task, an expected deadlock and another failure.
var chartResults = []Result{
	{Workload: "fib", Impl: "steal", OK: true, MedianNs: 9_590_000},
	{Workload: "fib", Impl: "goroutines", OK: true, MedianNs: 1_253_000_000},
	{Workload: "nested", Impl: "steal", OK: true, MedianNs: 13_200_000},
	{Workload: "nested", Impl: "goroutines", OK: true, MedianNs: 46_600_000},
	{Workload: "nested", Impl: "ants", Error: "timeout"},
	{Workload: "nested", Impl: "sequential", Error: "wrong result: got 1, want 2"},
	{Workload: "idle", Impl: "steal", OK: true, CPUNsPerS: 590_000},
	{Workload: "idle", Impl: "goroutines", OK: true, CPUNsPerS: 600_000},
	{Workload: "memory", Impl: "steal", OK: true, BytesPerTask: 64},
	{Workload: "memory", Impl: "goroutines", OK: true, BytesPerTask: 2160},
}

func TestCharts(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		draw func([]Result, string) error
		want []string
	}{
		{"time.svg", timeChart, []string{">9.59 ms<", ">1253 ms<", ">0.59 ms/s<", ">64 B<",
			">timed out: deadlocks by design<", ">wrong result: got 1, want 2<", ">bytes per queued task<"}},
		{"ratio.svg", ratioChart, []string{">goroutines = 1<", ">steal<", ">memory<", "log scale"}},
	} {
		path := filepath.Join(dir, c.name)
		if err := c.draw(chartResults, path); err != nil {
			t.Fatal(err)
		}
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		problems, err := svgplot.Problems(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", c.name, p)
		}
		for _, w := range c.want {
			if !strings.Contains(string(doc), w) {
				t.Errorf("%s lacks %q", c.name, w)
			}
		}
	}
}

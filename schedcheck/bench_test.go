package schedcheck_test

import (
	"sync"
	"testing"

	"github.com/worksteal/steal/schedcheck"
)

// BenchmarkSample is the cost of one Sample: the runtime metrics, the
// histogram copy, the cgroup files and getrusage. docs/schedcheck.md
// quotes it.
func BenchmarkSample(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		schedcheck.Sample()
	}
}

// BenchmarkDiagnose is the cost of diagnosing a window of 5 snapshots,
// which a Monitor does after each sample.
func BenchmarkDiagnose(b *testing.B) {
	w := make([]schedcheck.Snapshot, 5)
	for i := range w {
		w[i] = schedcheck.Sample()
	}
	b.ReportAllocs()
	for b.Loop() {
		schedcheck.Diagnose(w)
	}
}

// BenchmarkLockedGoroutines is the cost, with the world stopped, of
// counting locked goroutines among 1000 parked ones.
func BenchmarkLockedGoroutines(b *testing.B) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 1000 {
		wg.Go(func() { <-release })
	}
	defer wg.Wait()
	defer close(release)
	for b.Loop() {
		schedcheck.LockedGoroutines()
	}
}

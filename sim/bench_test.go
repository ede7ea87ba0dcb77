package sim

import (
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
)

// BenchmarkSim1000x1M simulates 1,000 workers and 1,000,000 exponential
// jobs, all starting on the first worker so that every job but the first
// worker's share travels by stealing, under each stealing policy.
func BenchmarkSim1000x1M(b *testing.B) {
	wl := Workload{Workers: 1000, Jobs: 1_000_000, Distribution: coord.First,
		Cost: Cost{Model: Exponential, Mean: time.Millisecond}, Seed: 1}
	queues := wl.Queues()
	for _, p := range []Policy{
		{Mode: StealOne, Victims: coord.MostLoaded},
		{Mode: StealHalf, Victims: coord.Random},
		{Mode: Central},
	} {
		b.Run(p.String(), func(b *testing.B) {
			var r Result
			for b.Loop() {
				r = Simulate(queues, p, wl.options())
			}
			if r.Jobs() != wl.Jobs {
				b.Fatalf("completed %d jobs", r.Jobs())
			}
			b.ReportMetric(float64(wl.Jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(r.Ratio(), "makespan/bound")
		})
	}
}

// BenchmarkWorkloadQueues measures building the million-job input alone.
func BenchmarkWorkloadQueues(b *testing.B) {
	wl := Workload{Workers: 1000, Jobs: 1_000_000, Cost: Cost{Model: Exponential, Mean: time.Millisecond}}
	for b.Loop() {
		wl.Queues()
	}
}

package sim

import (
	"math"
	"testing"
	"time"
)

func TestResultDerivedFigures(t *testing.T) {
	r := Result{
		Completed: []int{3, 1}, Busy: []time.Duration{30 * ms, 10 * ms},
		TotalWork: 40 * ms, LongestJob: 10 * ms, Makespan: 30 * ms,
		Remaining: [][]Task{nil, {{Key: 9}}},
	}
	if r.Workers() != 2 || r.Jobs() != 4 {
		t.Fatalf("workers %d jobs %d", r.Workers(), r.Jobs())
	}
	if r.LowerBound() != 20*ms {
		t.Fatalf("bound %v, want 20ms = 40ms/2", r.LowerBound())
	}
	if r.Ratio() != 1.5 {
		t.Fatalf("ratio %v", r.Ratio())
	}
	if u := r.Utilisation(); math.Abs(u-40.0/60) > 1e-9 {
		t.Fatalf("utilisation %v, want 2/3", u)
	}
	if idle := r.Idle(); idle[0] != 0 || idle[1] != 20*ms {
		t.Fatalf("idle %v", idle)
	}
	if s := r.QueueSizes(); s[0] != 0 || s[1] != 1 {
		t.Fatalf("sizes %v", s)
	}
	// The longest job dominates when there is little parallel work.
	r.LongestJob = 35 * ms
	if r.LowerBound() != 35*ms {
		t.Fatalf("bound %v, want the longest job", r.LowerBound())
	}
}

// TestLowerBoundNanosKeepsTheLongestJob: one job that costs the largest
// Duration and three of a nanosecond on four workers. LowerBound saturates
// because of the longest job, and LowerBoundNanos then returned the total
// work over W alone, a quarter of that job: a bound below the one job's
// cost, which steal sim printed as max(work/W, longest job).
func TestLowerBoundNanosKeepsTheLongestJob(t *testing.T) {
	queues := [][]Task{fixed(endOfTime, 1, 1, 1), nil, nil, nil}
	r := Simulate(queues, Policy{Mode: NoSteal}, Options{Horizon: ms})
	if r.LongestJob != endOfTime || r.LowerBound() != endOfTime {
		t.Fatalf("longest %v, bound %v, want both %v", r.LongestJob, r.LowerBound(), endOfTime)
	}
	if got := r.LowerBoundNanos(); got < float64(endOfTime) {
		t.Fatalf("LowerBoundNanos %g, below the longest job's %g", got, float64(endOfTime))
	}
}

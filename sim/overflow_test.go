package sim

import (
	"math"
	"testing"
	"time"
)

const (
	year        = 365 * 24 * time.Hour
	maxDuration = time.Duration(math.MaxInt64) // about 292 years
)

// Costs beyond what a time.Duration holds saturate instead of wrapping to
// a negative number and so to the 1 ns floor.
func TestCostDrawSaturates(t *testing.T) {
	pareto := Cost{Model: Pareto, Mean: year}
	floor := pareto.Mean / 3 // Pareto(1.5)'s scale: no draw is smaller
	uniform := Cost{Model: Uniform, Mean: 200 * year}
	top := 0
	for k := range uint64(200_000) {
		if d := pareto.Draw(k); d < floor {
			t.Errorf("pareto draw %d: %v, below the minimum %v", k, d, floor)
		}
		if pareto.Draw(k) == maxDuration {
			top++
		}
		// Uniform on [0, 400 years]: above 3/4 of the range the draw
		// exceeds 292 years.
		if unit(k) > 0.75 && uniform.Draw(k) != maxDuration {
			t.Errorf("uniform draw %d (u = %v): %v, want the largest duration", k, unit(k), uniform.Draw(k))
		}
	}
	if top == 0 {
		t.Fatal("no pareto draw reached the top: the test misses the tail it is for")
	}
	if d := (Cost{Model: Fixed, Mean: maxDuration}).Draw(1); d != maxDuration {
		t.Fatalf("fixed draw %v", d)
	}
}

// 600 one-year jobs hold 600 years of work, more than a time.Duration
// holds; the lower bound on three workers, 200 years, still fits.
func TestTotalWorkBeyondDurationRange(t *testing.T) {
	jobs := make([]Task, 600)
	for k := range jobs {
		jobs[k] = Task{Key: uint64(k), Cost: year}
	}
	r := Simulate([][]Task{jobs, nil, nil}, Policy{Mode: StealOne}, Options{Horizon: year})
	if r.LowerBound() != 200*year {
		t.Fatalf("lower bound %v, want 200 years", r.LowerBound())
	}
	if r.Finished || r.Jobs() != 3 {
		t.Fatalf("finished %v with %d jobs done, want 3 done and the run cut off", r.Finished, r.Jobs())
	}
}

// Forty workers busy for ten years each: 400 worker-years, more than a
// time.Duration holds, and the utilisation is still 1.
func TestUtilisationBeyondDurationRange(t *testing.T) {
	queues := make([][]Task, 40)
	for w := range queues {
		queues[w] = []Task{{Key: uint64(w), Cost: 10 * year}}
	}
	r := Simulate(queues, Policy{Mode: NoSteal}, Options{Sample: Sampling{Every: year}})
	if u := r.Utilisation(); math.Abs(u-1) > 1e-9 {
		t.Fatalf("utilisation %v, want 1", u)
	}
	for i := 1; i < len(r.Samples); i++ {
		if u := r.SampleUtilisation(i); math.Abs(u-1) > 1e-9 {
			t.Fatalf("sample %d at %v: utilisation %v, want 1", i, r.Samples[i].At, u)
		}
	}
}

// A job that would end past the last instant a time.Duration holds does
// not wrap to a time in the past: the run stops unfinished, as at a
// horizon, with the job's remaining cost queued.
func TestRunStopsAtTheEndOfVirtualTime(t *testing.T) {
	for _, tc := range []struct {
		name    string
		horizon time.Duration
		costs   []time.Duration
	}{
		{"no horizon", 0, []time.Duration{200 * year, 200 * year}},
		{"horizon", year, []time.Duration{time.Millisecond, maxDuration}},
	} {
		r := Simulate([][]Task{fixed(tc.costs...)}, Policy{Mode: NoSteal}, Options{Horizon: tc.horizon})
		if r.Finished || r.Jobs() != 1 || len(r.Remaining[0]) != 1 || r.Makespan <= 0 {
			t.Errorf("%s: finished %v, %d done, remaining %v, makespan %v; want 1 done, 1 left, unfinished",
				tc.name, r.Finished, r.Jobs(), r.Remaining, r.Makespan)
			continue
		}
		left := r.Remaining[0][0].Cost
		if ran := r.Busy[0] - tc.costs[0]; left+ran != tc.costs[1] {
			t.Errorf("%s: second job ran %v and has %v left, of %v", tc.name, ran, left, tc.costs[1])
		}
	}
}

// A steal request that would arrive past the end of virtual time does not
// wrap to a time in the past: it never arrives, and the victim runs its
// own jobs.
func TestHugeStealLatency(t *testing.T) {
	r := Simulate([][]Task{fixed(10*ms, 10*ms, 10*ms), fixed(ms)}, Policy{Mode: StealOne}, Options{StealLatency: maxDuration})
	if !r.Finished || r.Makespan != 30*ms || r.Steals != 0 || r.Completed[0] != 3 {
		t.Fatalf("finished %v, makespan %v, %d steals, completed %v; want w0 to run its 3 jobs by 30ms, nothing stolen",
			r.Finished, r.Makespan, r.Steals, r.Completed)
	}
}

// A run is finished when every job is done, even if a steal request is
// still in flight past the horizon: it could only fail.
func TestFinishedWhenEveryJobIsDone(t *testing.T) {
	r := Simulate([][]Task{fixed(ms, ms), nil}, Policy{Mode: StealOne},
		Options{StealLatency: 2 * time.Second, Horizon: time.Second})
	if !r.Finished || r.Makespan != 2*ms || r.Left() != 0 {
		t.Fatalf("finished %v, makespan %v, %d left; want finished at 2ms", r.Finished, r.Makespan, r.Left())
	}
}

// The bound of 600 years of work on one worker is beyond a time.Duration:
// LowerBound saturates, LowerBoundNanos does not, and the run, cut off at
// the end of virtual time, is not finished.
func TestLowerBoundBeyondDurationRange(t *testing.T) {
	jobs := make([]Task, 600)
	for k := range jobs {
		jobs[k] = Task{Key: uint64(k), Cost: year}
	}
	r := Simulate([][]Task{jobs}, Policy{Mode: NoSteal}, Options{})
	if r.LowerBound() != maxDuration || r.TotalWork != maxDuration {
		t.Fatalf("bound %v, work %v; want both saturated", r.LowerBound(), r.TotalWork)
	}
	if want := 600 * float64(year); math.Abs(r.LowerBoundNanos()-want) > want*1e-15 {
		t.Fatalf("LowerBoundNanos %v, want %v", r.LowerBoundNanos(), want)
	}
	if r.Finished || r.Jobs() != 292 || r.Left() != 308 || r.Makespan != maxDuration-1 {
		t.Fatalf("finished %v, %d done, %d left, stopped at %v; want 292 done in 292 years", r.Finished, r.Jobs(), r.Left(), r.Makespan)
	}
	if ratio := r.Ratio(); math.Abs(ratio-float64(maxDuration)/(600*float64(year))) > 1e-9 {
		t.Fatalf("ratio %v", ratio)
	}
}

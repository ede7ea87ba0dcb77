package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
)

const ms = time.Millisecond

func fixed(costs ...time.Duration) []Task {
	out := make([]Task, len(costs))
	for i, c := range costs {
		out[i] = Task{Key: uint64(i), Cost: c}
	}
	return out
}

// Six 10 ms jobs on the first of three workers: stealing balances them
// perfectly, no stealing leaves one worker doing everything.
func TestSimulateSixJobsOnThreeWorkers(t *testing.T) {
	queues := [][]Task{fixed(10*ms, 10*ms, 10*ms, 10*ms, 10*ms, 10*ms), nil, nil}
	for _, tc := range []struct {
		p         Policy
		makespan  time.Duration
		completed []int
		steals    int
	}{
		{Policy{Mode: NoSteal}, 60 * ms, []int{6, 0, 0}, 0},
		{Policy{Mode: Central}, 20 * ms, []int{2, 2, 2}, 0},
		{Policy{Mode: StealOne}, 20 * ms, []int{2, 2, 2}, 4},
		{Policy{Mode: StealHalf}, 20 * ms, []int{2, 2, 2}, 3}, // w1 takes 3-5, w2 takes 2; at 10 ms w2 takes 5 from w1
	} {
		r := Simulate(queues, tc.p, Options{})
		if r.Makespan != tc.makespan || !reflect.DeepEqual(r.Completed, tc.completed) || r.Steals != tc.steals {
			t.Errorf("%v: makespan %v completed %v steals %d; want %v %v %d",
				tc.p, r.Makespan, r.Completed, r.Steals, tc.makespan, tc.completed, tc.steals)
		}
		if !r.Finished || r.LowerBound() != 20*ms || r.Jobs() != 6 {
			t.Errorf("%v: finished %v bound %v jobs %d", tc.p, r.Finished, r.LowerBound(), r.Jobs())
		}
	}
	if len(queues[0]) != 6 || queues[0][0].Cost != 10*ms {
		t.Fatal("Simulate modified its input")
	}
}

func TestStealHalfMovesHalfFromTheBack(t *testing.T) {
	// w0 runs job0 and holds 1..4; w1 steals the back half: 3 and 4.
	r := Simulate([][]Task{fixed(5*ms, ms, ms, ms, ms), nil}, Policy{Mode: StealHalf}, Options{Horizon: time.Microsecond})
	if r.Steals != 1 || r.Moved != 2 {
		t.Fatalf("steals %d moved %d, want 1 and 2", r.Steals, r.Moved)
	}
	keys := func(q []Task) (k []uint64) {
		for _, t := range q {
			k = append(k, t.Key)
		}
		return k
	}
	if got := keys(r.Remaining[0]); !reflect.DeepEqual(got, []uint64{0, 1, 2}) {
		t.Errorf("owner keeps %v, want [0 1 2] (job0 preempted back on front)", got)
	}
	if got := keys(r.Remaining[1]); !reflect.DeepEqual(got, []uint64{3, 4}) {
		t.Errorf("thief holds %v, want [3 4] (running 3, then 4)", got)
	}
}

func TestHorizonPreemptsAndReturnsRemainingWork(t *testing.T) {
	r := Simulate([][]Task{fixed(10*ms, 10*ms), nil}, Policy{Mode: NoSteal}, Options{Horizon: 15 * ms})
	if r.Finished || r.Makespan != 15*ms || r.Completed[0] != 1 {
		t.Fatalf("finished %v makespan %v completed %v", r.Finished, r.Makespan, r.Completed)
	}
	if got := r.Remaining[0]; len(got) != 1 || got[0].Key != 1 || got[0].Cost != 5*ms {
		t.Fatalf("remaining %+v, want job1 with 5ms left", got)
	}
	if r.Busy[0] != 15*ms || r.Idle()[1] != 15*ms || r.QueueSizes()[0] != 1 {
		t.Fatalf("busy %v idle %v sizes %v", r.Busy, r.Idle(), r.QueueSizes())
	}
}

func TestStealLatencyDelaysAndCanFail(t *testing.T) {
	// One 10 ms job queued behind a 1 ms one; thieves w1 and w2 both target
	// w0 with a 2 ms latency: the first to arrive wins, the other fails.
	queues := [][]Task{fixed(ms, 10*ms), nil, nil}
	r := Simulate(queues, Policy{Mode: StealOne}, Options{StealLatency: 2 * ms})
	if r.Steals != 0 || r.Makespan != 11*ms {
		// w0 finishes job0 at 1 ms and pops job1 before any thief arrives.
		t.Fatalf("steals %d failed %d makespan %v", r.Steals, r.FailedSteals, r.Makespan)
	}
	if r.FailedSteals != 2 {
		t.Fatalf("failed steals %d, want 2", r.FailedSteals)
	}
	r = Simulate([][]Task{fixed(10*ms, 10*ms), nil}, Policy{Mode: StealOne}, Options{StealLatency: 2 * ms})
	if r.Steals != 1 || r.Makespan != 12*ms {
		t.Fatalf("steals %d makespan %v, want 1 and 12ms", r.Steals, r.Makespan)
	}
	r = Simulate([][]Task{fixed(10*ms, 10*ms)}, Policy{Mode: Central}, Options{StealLatency: ms})
	if r.Makespan != 22*ms {
		t.Fatalf("central with fetch latency: makespan %v, want 22ms", r.Makespan)
	}
}

func TestSpawnedWorkIsRunAndCounted(t *testing.T) {
	o := Options{Spawn: Spawn{Prob: 1, Children: 2, Depth: 3, Cost: Cost{Mean: ms}}}
	for _, p := range AllPolicies() {
		r := Simulate([][]Task{fixed(ms), nil, nil, nil}, p, o)
		// A full binary tree of depth 3: 1 + 2 + 4 + 8 jobs of 1 ms.
		if r.Jobs() != 15 || r.TotalWork != 15*ms || !r.Finished {
			t.Errorf("%v: jobs %d work %v finished %v", p, r.Jobs(), r.TotalWork, r.Finished)
		}
		if p.Mode != NoSteal && r.Makespan >= 15*ms {
			t.Errorf("%v: makespan %v, no better than serial", p, r.Makespan)
		}
	}
}

func TestSimulateEveryPolicyConservesJobs(t *testing.T) {
	wl := Workload{Workers: 7, Jobs: 5000, Distribution: coord.Skewed,
		Cost: Cost{Model: Exponential, Mean: ms}, StealLatency: 50 * time.Microsecond, Seed: 3}
	for _, r := range wl.Compare(AllPolicies()) {
		if r.Jobs() != 5000 || !r.Finished {
			t.Errorf("%v: completed %d of 5000", r.Policy, r.Jobs())
		}
		if r.Makespan < r.LowerBound() || r.Utilisation() > 1 {
			t.Errorf("%v: makespan %v below bound %v or utilisation %.3f > 1",
				r.Policy, r.Makespan, r.LowerBound(), r.Utilisation())
		}
	}
}

func TestSimulateIsDeterministic(t *testing.T) {
	wl := Workload{Workers: 16, Jobs: 3000, Cost: Cost{Model: Pareto, Mean: ms}, Seed: 9,
		Spawn: Spawn{Prob: 0.3, Children: 2, Depth: 4}, StealLatency: 10 * time.Microsecond}
	for _, p := range AllPolicies() {
		a, b := wl.Run(p), wl.Run(p)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%v: two runs differ", p)
		}
	}
}

func TestSimulateEmpty(t *testing.T) {
	r := Simulate(nil, Policy{Mode: StealOne}, Options{})
	// Nothing to run is a perfect schedule: ratio 1, "1 at best", as
	// the ratio of any finished run is at least 1.
	if !r.Finished || r.Makespan != 0 || r.Ratio() != 1 || r.Utilisation() != 0 {
		t.Fatalf("empty run: %+v", r)
	}
	r = Simulate([][]Task{nil, nil}, Policy{Mode: Central}, Options{})
	if r.Jobs() != 0 || len(r.Remaining) != 2 {
		t.Fatalf("no jobs: %+v", r)
	}
}

func TestRequestsInFlightAtFinishChangeNothing(t *testing.T) {
	// w1 and w2 ask w0 for its queued job with a 5 ms latency; w0 runs
	// both of its jobs by 2 ms. The two requests arrive after the last
	// job: they are neither failed steals nor events, and a budget of the
	// two finishing events is not run out.
	queues := [][]Task{fixed(ms, ms), nil, nil}
	for _, budget := range []int{0, 2} {
		r := Simulate(queues, Policy{Mode: StealOne}, Options{StealLatency: 5 * ms, MaxEvents: budget})
		if !r.Finished || r.Makespan != 2*ms {
			t.Fatalf("budget %d: finished %v makespan %v, want true and 2ms", budget, r.Finished, r.Makespan)
		}
		if r.FailedSteals != 0 || r.Events != 2 || r.OutOfEvents {
			t.Fatalf("budget %d: failed steals %d, events %d, out of events %v; want 0, 2, false",
				budget, r.FailedSteals, r.Events, r.OutOfEvents)
		}
	}
}

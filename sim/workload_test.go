package sim

import (
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
)

func TestWorkloadQueuesFollowTheDistribution(t *testing.T) {
	wl := Workload{Workers: 3, Jobs: 7, Distribution: coord.Blocks, Cost: Cost{Model: Uniform, Mean: ms}, Seed: 4}
	q := wl.Queues()
	if len(q[0]) != 2 || len(q[1]) != 2 || len(q[2]) != 3 || q[2][0].Key != 4 {
		t.Fatalf("blocks layout wrong: %v", q)
	}
	other := wl
	other.Seed = 5
	if q[0][0].Cost == other.Queues()[0][0].Cost && q[0][1].Cost == other.Queues()[0][1].Cost {
		t.Fatal("seed does not change costs")
	}
}

// TestSeedChangesSpawnedCosts: the seed drew the costs of the initial jobs
// only; a spawned job's cost was keyed by its key alone, which derives from
// its parent's index, so every seed ran the same spawned jobs, most of a
// fork-join workload's work. Here every job spawns, so the tree is the same
// under both seeds and only the costs can differ.
func TestSeedChangesSpawnedCosts(t *testing.T) {
	spawnedWork := func(seed uint64) time.Duration {
		wl := Workload{Workers: 1, Jobs: 1, Cost: Cost{Model: Exponential, Mean: ms},
			Spawn: Spawn{Prob: 1, Children: 2, Depth: 3}, Seed: seed}
		r := wl.Run(Policy{Mode: NoSteal})
		if r.Jobs() != 15 {
			t.Fatalf("seed %d: %d jobs, want 15", seed, r.Jobs())
		}
		return r.TotalWork - wl.JobCost(0)
	}
	if a, b := spawnedWork(1), spawnedWork(2); a == b {
		t.Fatalf("seeds 1 and 2 give the 14 spawned jobs the same total cost, %v", a)
	}
}

func TestWorkloadValidate(t *testing.T) {
	good := Workload{Workers: 2, Jobs: 10, Cost: Cost{Mean: ms}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Workload){
		"no workers":    func(w *Workload) { w.Workers = 0 },
		"negative jobs": func(w *Workload) { w.Jobs = -1 },
		"zero cost":     func(w *Workload) { w.Cost.Mean = 0 },
		"neg latency":   func(w *Workload) { w.StealLatency = -time.Second },
		"prob > 1":      func(w *Workload) { w.Spawn.Prob = 2 },
	} {
		bad := good
		mutate(&bad)
		if bad.Validate() == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// Stealing must beat not stealing on an unbalanced start, and the
// coordinated victim choices must get close to the bound.
func TestWorkloadCompareRanksPolicies(t *testing.T) {
	wl := Workload{Workers: 32, Jobs: 20000, Distribution: coord.First,
		Cost: Cost{Model: Exponential, Mean: ms}, Seed: 1}
	rs := wl.Compare(AllPolicies())
	none := rs[0]
	if none.Ratio() < 30 {
		t.Errorf("no stealing from one worker: ratio %.2f, want about 32", none.Ratio())
	}
	for _, r := range rs[1:] {
		if r.Ratio() > 1.1 {
			t.Errorf("%v: ratio %.3f, want close to 1", r.Policy, r.Ratio())
		}
	}
}

func TestWorkloadJobCostMatchesQueues(t *testing.T) {
	wl := Workload{Workers: 2, Jobs: 10, Distribution: coord.RoundRobin, Cost: Cost{Model: Exponential, Mean: ms}, Seed: 8}
	q := wl.Queues()
	if q[1][2].Key != 5 || q[1][2].Cost != wl.JobCost(5) {
		t.Fatalf("job 5 = %+v, JobCost %v", q[1][2], wl.JobCost(5))
	}
}

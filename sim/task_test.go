package sim

import (
	"math"
	"testing"
	"time"
)

func TestSpawnChildrenIsDeterministicAndBounded(t *testing.T) {
	s := Spawn{Prob: 0.5, Children: 3, Depth: 2}
	spawned := 0
	for k := range uint64(10000) {
		n := s.children(Task{Key: k}, 1)
		if n != s.children(Task{Key: k}, 1) {
			t.Fatal("children not deterministic")
		}
		if n != 0 && n != 3 {
			t.Fatalf("children = %d, want 0 or 3", n)
		}
		if n > 0 {
			spawned++
		}
		if s.children(Task{Key: k, Depth: 2}, 1) != 0 {
			t.Fatal("a job at the depth limit spawned")
		}
	}
	if spawned < 4700 || spawned > 5300 {
		t.Fatalf("%d of 10000 spawned with probability 0.5", spawned)
	}
	if (Spawn{}).children(Task{}, 0) != 0 {
		t.Fatal("zero Spawn spawned")
	}
	if childKey(1, 0) == childKey(1, 1) || childKey(1, 0) == childKey(2, 0) {
		t.Fatal("child keys collide")
	}
}

// TestHugeSpawnChildrenStopAtMaxTasks: a child count near the largest int
// wrapped the check against MaxTasks (tasks so far + children went
// negative), so the job spawned them all, without bound, until memory ran
// out. A count above MaxTasks, which no run could hold, is refused; a job
// whose children would take the run past MaxTasks spawns none.
func TestHugeSpawnChildrenStopAtMaxTasks(t *testing.T) {
	for _, children := range []int{math.MaxInt, math.MaxInt - 2, MaxTasks + 1} {
		wl := Workload{Workers: 2, Jobs: 3, Cost: Cost{Model: Fixed, Mean: time.Millisecond},
			Spawn: Spawn{Prob: 1, Children: children, Depth: 1}, Seed: 1}
		if wl.Validate() == nil {
			t.Errorf("%d children accepted, more than MaxTasks", children)
		}
	}
	for _, children := range []int{MaxTasks, MaxTasks - 2} {
		wl := Workload{Workers: 2, Jobs: 3, Cost: Cost{Model: Fixed, Mean: time.Millisecond},
			Spawn: Spawn{Prob: 1, Children: children, Depth: 1}, Seed: 1}
		for _, p := range AllPolicies() {
			if r := wl.Run(p); !r.Finished || r.Jobs() != 3 {
				t.Errorf("%d children, %v: finished %v with %d jobs, want the 3 jobs and no children",
					children, p, r.Finished, r.Jobs())
			}
		}
	}
}

package sim_test

import (
	"fmt"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// Compare policies on 4,000 jobs that all start on the first of 8 workers.
func Example() {
	wl := sim.Workload{
		Workers: 8, Jobs: 4000, Distribution: coord.First,
		Cost: sim.Cost{Model: sim.Fixed, Mean: time.Millisecond},
	}
	policies, _ := sim.ParsePolicies("none,central,one/most_loaded,half/random")
	for _, r := range wl.Compare(policies) {
		fmt.Printf("%-15s makespan %-6v ratio %.2f steals %d\n", r.Policy, r.Makespan, r.Ratio(), r.Steals)
	}
	// Output:
	// none            makespan 4s     ratio 8.00 steals 0
	// central         makespan 500ms  ratio 1.00 steals 0
	// one/most_loaded makespan 500ms  ratio 1.00 steals 3500
	// half/random     makespan 500ms  ratio 1.00 steals 55
}

// Simulate explicit deques for a while and look at what is left (worker 1
// stole job 2 and finished it; job 1 was preempted at the horizon): the node
// does this for run_simulation.
func ExampleSimulate() {
	ms := time.Millisecond
	queues := [][]sim.Task{{{Key: 0, Cost: 4 * ms}, {Key: 1, Cost: 4 * ms}, {Key: 2, Cost: 4 * ms}}, {}}
	r := sim.Simulate(queues, sim.Policy{Mode: sim.StealOne}, sim.Options{Horizon: 6 * ms})
	fmt.Println("finished:", r.Finished, "completed:", r.Completed)
	for w, q := range r.Remaining {
		for _, t := range q {
			fmt.Printf("worker %d keeps job %d with %v left\n", w, t.Key, t.Cost)
		}
	}
	// Output:
	// finished: false completed: [1 1]
	// worker 0 keeps job 1 with 2ms left
}

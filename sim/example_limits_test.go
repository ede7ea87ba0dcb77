package sim_test

import (
	"fmt"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// 600 one-year jobs on one worker: the lower bound, 600 years, is beyond
// what a time.Duration holds, so LowerBound saturates and LowerBoundNanos
// gives it. The run stops, unfinished, at the end of virtual time, about
// 292 years in, with the rest of the jobs left.
func ExampleResult_LowerBoundNanos() {
	year := 365 * 24 * time.Hour
	wl := sim.Workload{Workers: 1, Jobs: 600, Cost: sim.Cost{Model: sim.Fixed, Mean: year}}
	r := wl.Run(sim.Policy{Mode: sim.NoSteal})
	fmt.Printf("bound %.0f years (LowerBound %v)\n", r.LowerBoundNanos()/float64(year), r.LowerBound())
	fmt.Printf("finished %v: %d jobs done, %d left\n", r.Finished, r.Jobs(), r.Left())
	// Output:
	// bound 600 years (LowerBound 2562047h47m16.854775807s)
	// finished false: 292 jobs done, 308 left
}

// MaxEvents bounds the work of a run: here a thousand jobs need a thousand
// events, and a budget of 100 stops the run after the hundredth.
func ExampleOptions_maxEvents() {
	wl := sim.Workload{Workers: 10, Jobs: 1000, Distribution: coord.Blocks,
		Cost: sim.Cost{Model: sim.Fixed, Mean: time.Millisecond}}
	p := sim.Policy{Mode: sim.StealOne}
	r := sim.Simulate(wl.Queues(), p, sim.Options{MaxEvents: 100})
	fmt.Println(r.Finished, r.OutOfEvents, r.Events, r.Jobs(), r.Left(), r.Makespan)
	r = sim.Simulate(wl.Queues(), p, sim.Options{MaxEvents: 1000})
	fmt.Println(r.Finished, r.OutOfEvents, r.Events, r.Jobs(), r.Left(), r.Makespan)
	// Output:
	// false true 100 100 900 10ms
	// true false 1000 1000 0 100ms
}

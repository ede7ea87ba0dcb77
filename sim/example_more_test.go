package sim_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// 100 one-millisecond jobs, skewed over 4 workers (50, 25, 13 and 12 jobs):
// stealing one job at a time from the most loaded worker evens them out and
// meets the lower bound, 25ms.
func ExampleWorkload_Run() {
	wl := sim.Workload{
		Workers: 4, Jobs: 100, Distribution: coord.Skewed,
		Cost: sim.Cost{Model: sim.Fixed, Mean: time.Millisecond},
	}
	r := wl.Run(sim.Policy{Mode: sim.StealOne, Victims: coord.MostLoaded})
	fmt.Println(r.Makespan, r.LowerBound(), r.Finished, r.Completed, r.Steals)
	// Output:
	// 25ms 25ms true [25 25 25 25] 25
}

// With a steal latency, each steal costs the thief time; stealing half a
// deque at once pays it less often than stealing one job.
func ExampleWorkload_Compare() {
	wl := sim.Workload{
		Workers: 4, Jobs: 400, Distribution: coord.First, Seed: 1,
		Cost:         sim.Cost{Model: sim.Exponential, Mean: time.Millisecond},
		StealLatency: 500 * time.Microsecond,
	}
	policies := []sim.Policy{{Mode: sim.NoSteal}, {Mode: sim.StealOne}, {Mode: sim.StealHalf}}
	for _, r := range wl.Compare(policies) {
		fmt.Printf("%-16s ratio %.2f steals %d\n", r.Policy, r.Ratio(), r.Steals)
	}
	// Output:
	// none             ratio 4.00 steals 0
	// one/most_loaded  ratio 1.38 steals 263
	// half/most_loaded ratio 1.05 steals 10
}

func ExampleParsePolicies() {
	ps, err := sim.ParsePolicies("none,one,half/random")
	fmt.Println(ps, err)
	all, _ := sim.ParsePolicies("all")
	fmt.Println(len(all), all[0], all[len(all)-1])
	_, err = sim.ParsePolicies("one,fastest")
	fmt.Println(err)
	// Output:
	// [none one/most_loaded half/random] <nil>
	// 8 none half/best_of_two
	// sim: unknown policy "fastest" (want none, central, one/<victims> or half/<victims>)
}

func ExampleParseCostModel() {
	m, err := sim.ParseCostModel("heavy") // an alias
	fmt.Println(m, err)
	_, err = sim.ParseCostModel("normal")
	fmt.Println(err)
	// Output:
	// pareto <nil>
	// sim: unknown cost model "normal" (want fixed, uniform, exponential or pareto)
}

// One worker holds a 3ms and a 1ms job. Without stealing it runs both while
// the other idles; with stealing the short job moves and the run is optimal.
func ExampleResult_Ratio() {
	ms := time.Millisecond
	queues := [][]sim.Task{{{Key: 0, Cost: 3 * ms}, {Key: 1, Cost: 1 * ms}}, {}}
	for _, mode := range []sim.Mode{sim.NoSteal, sim.StealOne} {
		r := sim.Simulate(queues, sim.Policy{Mode: mode}, sim.Options{})
		fmt.Printf("%v: makespan %v, bound %v, ratio %.2f\n", r.Policy, r.Makespan, r.LowerBound(), r.Ratio())
	}
	// Output:
	// none: makespan 4ms, bound 3ms, ratio 1.33
	// one/most_loaded: makespan 3ms, bound 3ms, ratio 1.00
}

// Utilisation is busy time over workers × makespan; Idle breaks the rest
// down per worker.
func ExampleResult_Utilisation() {
	ms := time.Millisecond
	queues := [][]sim.Task{{{Key: 0, Cost: 3 * ms}, {Key: 1, Cost: 1 * ms}}, {}}
	r := sim.Simulate(queues, sim.Policy{Mode: sim.StealOne}, sim.Options{})
	fmt.Printf("utilisation %.2f, busy %v, idle %v\n", r.Utilisation(), r.Busy, r.Idle())
	// Output:
	// utilisation 0.67, busy [3ms 1ms], idle [0s 2ms]
}

// A central queue whose server spends 50 µs on each fetch hands out at
// most 20,000 jobs/s: 1 ms jobs stop scaling past about 20 workers, while
// stealing (here with no latency) keeps scaling.
func ExampleOptions_centralService() {
	for _, w := range []int{10, 20, 40, 80} {
		wl := sim.Workload{
			Workers: w, Jobs: 100 * w, Distribution: coord.RoundRobin,
			Cost:           sim.Cost{Model: sim.Fixed, Mean: time.Millisecond},
			CentralService: 50 * time.Microsecond,
		}
		rs := wl.Compare([]sim.Policy{{Mode: sim.Central}, {Mode: sim.StealHalf}})
		fmt.Printf("W=%-2d central %5.0f jobs/s  half %5.0f jobs/s\n", w,
			float64(rs[0].Jobs())/rs[0].Makespan.Seconds(), float64(rs[1].Jobs())/rs[1].Makespan.Seconds())
	}
	// Output:
	// W=10 central  9483 jobs/s  half 10000 jobs/s
	// W=20 central 18877 jobs/s  half 20000 jobs/s
	// W=40 central 19900 jobs/s  half 40000 jobs/s
	// W=80 central 19950 jobs/s  half 80000 jobs/s
}

// A number out of its bounds comes back as a *FieldError, which says the
// field, the rule and the value apart, for a program to word in its own
// terms (steal sim names its flag).
func ExampleFieldError() {
	wl := sim.Workload{Workers: 4, Jobs: 100, Cost: sim.Cost{Mean: 0}}
	err := wl.Validate()
	fmt.Println(err)
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		fmt.Printf("%s %s, not %s\n", fe.Field, fe.Want, fe.Have)
	}
	// Output:
	// sim: mean cost must be positive, have 0s
	// Cost.Mean must be positive, not 0s
}

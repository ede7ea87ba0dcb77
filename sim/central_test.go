package sim

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
)

// With a service time the central server hands out one job per service:
// 100 jobs of 1 ms on 10 workers take 100 services plus the last job (and
// the latency), not 10 ms.
func TestCentralServiceSaturates(t *testing.T) {
	ms := time.Millisecond
	queues := [][]Task{same(100, ms), {}, {}, {}, {}, {}, {}, {}, {}, {}}
	for _, c := range []struct {
		service, latency, want time.Duration
	}{
		{0, 0, 10 * ms},
		{ms, 0, 101 * ms},
		{ms, ms, 102 * ms},
	} {
		r := Simulate(queues, Policy{Mode: Central}, Options{CentralService: c.service, StealLatency: c.latency})
		if !r.Finished || r.Makespan != c.want || r.Jobs() != 100 {
			t.Errorf("service %v latency %v: makespan %v finished %v jobs %d, want %v",
				c.service, c.latency, r.Makespan, r.Finished, r.Jobs(), c.want)
		}
	}
}

// Below saturation a fetch waits only for the fetches ahead of it: two
// workers, 1 ms jobs, 0.1 ms service. Worker 1's first fetch waits for
// worker 0's; after that they alternate without waiting, 1.1 ms a job.
func TestCentralServiceQueues(t *testing.T) {
	us := time.Microsecond
	r := Simulate([][]Task{same(10, 1000*us), {}}, Policy{Mode: Central}, Options{CentralService: 100 * us})
	if want := 5600 * us; r.Makespan != want || !reflect.DeepEqual(r.Completed, []int{5, 5}) {
		t.Errorf("makespan %v completed %v, want %v and [5 5]", r.Makespan, r.Completed, want)
	}
}

// The service time belongs to the central queue: steal policies ignore it.
func TestCentralServiceOnlyCentral(t *testing.T) {
	wl := Workload{Workers: 8, Jobs: 500, Distribution: coord.First, Seed: 3,
		Cost: Cost{Model: Exponential, Mean: time.Millisecond}, StealLatency: 50 * time.Microsecond}
	for _, p := range []Policy{{Mode: NoSteal}, {Mode: StealOne}, {Mode: StealHalf, Victims: coord.BestOfTwo}} {
		a := wl.Run(p)
		wl2 := wl
		wl2.CentralService = time.Millisecond
		if b := wl2.Run(p); !reflect.DeepEqual(a, b) {
			t.Errorf("%v: a central service time changed the run", p)
		}
	}
}

func TestCentralServiceValidate(t *testing.T) {
	wl := Workload{Workers: 1, Jobs: 1, Cost: Cost{Mean: time.Millisecond}, CentralService: -1}
	if err := wl.Validate(); err == nil || !strings.Contains(err.Error(), "central service") {
		t.Errorf("negative service time: err %v, want one naming the central service time", err)
	}
}

// same returns n jobs of cost c.
func same(n int, c time.Duration) []Task {
	out := make([]Task, n)
	for i := range out {
		out[i] = Task{Key: uint64(i), Cost: c}
	}
	return out
}

// TestCentralIgnoresDistribution: the Central policy's one queue holds the
// jobs in id order whatever the distribution; joining the workers' queues
// in worker order made RoundRobin's a different run.
func TestCentralIgnoresDistribution(t *testing.T) {
	for seed := range uint64(10) {
		base := Workload{Workers: 3, Jobs: 12, Cost: Cost{Model: Exponential, Mean: time.Millisecond}, Seed: seed}
		want := base.Run(Policy{Mode: Central})
		for _, d := range []coord.Distribution{coord.RoundRobin, coord.Blocks, coord.Skewed} {
			wl := base
			wl.Distribution = d
			if got := wl.Run(Policy{Mode: Central}); got.Makespan != want.Makespan || !slices.Equal(got.Completed, want.Completed) {
				t.Errorf("seed %d, %v: makespan %v, completed %v; with the first distribution %v, %v", seed, d, got.Makespan, got.Completed, want.Makespan, want.Completed)
			}
			if got := wl.Compare([]Policy{{Mode: Central}})[0]; got.Makespan != want.Makespan {
				t.Errorf("seed %d, %v: Compare's makespan %v, Run's %v", seed, d, got.Makespan, want.Makespan)
			}
		}
	}
}

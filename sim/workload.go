package sim

import (
	"fmt"
	"time"

	"github.com/worksteal/steal/cluster"
)

// Workload describes a synthetic job mix: how many jobs, where they start,
// what they cost, whether they spawn more, and the steal latency.
type Workload struct {
	Workers      int
	Jobs         int
	Distribution cluster.Distribution
	Cost         Cost
	Spawn        Spawn
	StealLatency time.Duration
	// CentralService is passed to every run as Options.CentralService.
	CentralService time.Duration
	Seed           uint64
	// Sample is passed to every run as Options.Sample.
	Sample Sampling
}

// Validate reports the first thing that makes the workload unrunnable.
func (wl Workload) Validate() error {
	switch {
	case wl.Workers < 1:
		return fmt.Errorf("sim: need at least one worker, have %d", wl.Workers)
	case wl.Jobs < 0 || wl.Jobs > MaxTasks:
		return fmt.Errorf("sim: jobs must be in [0, %d], have %d", MaxTasks, wl.Jobs)
	case wl.Cost.Mean <= 0:
		return fmt.Errorf("sim: mean cost must be positive, have %v", wl.Cost.Mean)
	case wl.StealLatency < 0:
		return fmt.Errorf("sim: steal latency must not be negative, have %v", wl.StealLatency)
	case wl.CentralService < 0:
		return fmt.Errorf("sim: central service time must not be negative, have %v", wl.CentralService)
	case wl.Spawn.Prob < 0 || wl.Spawn.Prob > 1 || wl.Spawn.Children < 0 || wl.Spawn.Depth < 0:
		return fmt.Errorf("sim: spawn probability must be in [0, 1] and children, depth >= 0")
	}
	return nil
}

// Queues builds the initial deques: job k has key k and a cost drawn for
// (seed, k), and sits where the distribution places it.
func (wl Workload) Queues() [][]Task {
	counts := make([]int, wl.Workers)
	wl.Distribution.Place(wl.Jobs, wl.Workers, func(_, w int) { counts[w]++ })
	queues := make([][]Task, wl.Workers)
	for w, n := range counts {
		queues[w] = make([]Task, 0, n)
	}
	wl.Distribution.Place(wl.Jobs, wl.Workers, func(k, w int) {
		queues[w] = append(queues[w], Task{Key: uint64(k), Cost: wl.JobCost(k)})
	})
	return queues
}

// JobCost is the cost of job k: a draw from Cost keyed by (Seed, k).
func (wl Workload) JobCost(k int) time.Duration {
	return wl.Cost.Draw(mix(wl.Seed) + uint64(k))
}

// Run simulates the workload to completion under one policy.
func (wl Workload) Run(p Policy) Result {
	return Simulate(wl.Queues(), p, wl.options())
}

// Compare runs the same workload under each policy, in order.
func (wl Workload) Compare(policies []Policy) []Result {
	queues := wl.Queues()
	out := make([]Result, len(policies))
	for i, p := range policies {
		out[i] = Simulate(queues, p, wl.options())
	}
	return out
}

func (wl Workload) options() Options {
	spawn := wl.Spawn
	if spawn.Cost.Mean == 0 {
		spawn.Cost = wl.Cost // children cost like their parents by default
	}
	return Options{StealLatency: wl.StealLatency, CentralService: wl.CentralService,
		Seed: wl.Seed, Spawn: spawn, Sample: wl.Sample}
}

package main

import "time"

// config is what one invocation measures.
type config struct {
	Runs int `json:"runs"`
	// Procs: every sweep trial runs twice, with the workers in this
	// process and with each worker in a process of its own, interleaved.
	Procs     bool       `json:"procs"`
	Workers   []int      `json:"workers"`
	FetchK    int        `json:"fetch_k"`
	Workloads []workload `json:"workloads"`
	// LatencyWorkers: W of the steal-latency runs (a skewed start with
	// the observer on).
	LatencyWorkers []int       `json:"latency_workers"`
	Latency        workload    `json:"latency_workload"`
	Probe          []probeSize `json:"steal_probe"`
	RecoveryRuns   int         `json:"recovery_runs"`
	SimWorkers     []int       `json:"sim_workers"`
}

const ms1 = time.Millisecond

// fullConfig is the published sweep: a few minutes on two cores.
func fullConfig() config {
	return config{
		Runs: 5, Workers: []int{2, 4, 8, 16}, FetchK: 16,
		Workloads: []workload{
			{Name: "noop", Kind: kindThroughput, Jobs: 2000},
			{Name: "sleep-1ms", Kind: kindThroughput, Job: ms1, Jobs: 1000},
			{Name: "cpu-1ms", Kind: kindThroughput, Job: ms1, CPU: true, Jobs: 500, MaxW: 2},
			{Name: "skew-1ms", Kind: kindSkew, Job: ms1, Jobs: 500},
			{Name: "tree-1ms", Kind: kindTree, Job: ms1, Fanout: 4, Depth: 4},
			{Name: "tree-noop", Kind: kindTree, Fanout: 4, Depth: 5},
		},
		LatencyWorkers: []int{4, 16},
		Latency:        workload{Name: "skew-1ms", Kind: kindSkew, Job: ms1, Jobs: 1000},
		Probe:          []probeSize{{1, 200}, {16, 50}, {128, 10}},
		RecoveryRuns:   5,
		SimWorkers:     []int{2, 4, 8, 16, 32, 64, 128, 256, 512, 1000},
	}
}

// quickConfig is a smoke run of every part, in seconds.
func quickConfig() config {
	return config{
		Runs: 1, Workers: []int{2, 4}, FetchK: 4,
		Workloads: []workload{
			{Name: "noop", Kind: kindThroughput, Jobs: 100},
			{Name: "sleep-1ms", Kind: kindThroughput, Job: ms1, Jobs: 40},
			{Name: "cpu-1ms", Kind: kindThroughput, Job: ms1, CPU: true, Jobs: 20, MaxW: 2},
			{Name: "skew-1ms", Kind: kindSkew, Job: ms1, Jobs: 40},
			{Name: "tree-1ms", Kind: kindTree, Job: ms1, Fanout: 2, Depth: 3},
			{Name: "tree-noop", Kind: kindTree, Fanout: 2, Depth: 3},
		},
		LatencyWorkers: []int{2},
		Latency:        workload{Name: "skew-1ms", Kind: kindSkew, Job: ms1, Jobs: 40},
		Probe:          []probeSize{{1, 20}, {16, 5}, {128, 1}},
		RecoveryRuns:   1,
		SimWorkers:     []int{2, 4, 16, 64},
	}
}

package main

import "time"

// memory: param tasks queued behind a gate and not yet run: live heap plus
// stack bytes per queued task. The pools first fill every worker with a
// task blocked on the gate; goroutines are param goroutines blocked on it.
// ants, conc and errgroup have no queue (a submit blocks its caller until a
// worker is free), so they have nothing to measure here.
var memoryWorkload = &Workload{
	Name:    "memory",
	About:   "param tasks queued behind a gate: heap+stack bytes per queued task",
	Default: 1_000_000, Tiny: 10_000, Timeout: 60 * time.Second,
	Tasks: func(n int) int64 { return int64(n) },
	Want:  func(n int) int64 { return int64(n) },
	Impls: []Impl{
		{"steal", memorySteal},
		{"goroutines", memoryGoroutines},
		{"pond", memoryPond},
		{"channel", memoryChannel},
	},
}

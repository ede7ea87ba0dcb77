package main

import (
	"time"

	"github.com/worksteal/steal"
)

// fib: fib(param) forking on every call, no cutoff: the cost of a fork and
// a join. Bounded pools (ants, pond, conc's pool, channel) are left out: a
// task waiting for a child it queued deadlocks them, as nested shows.
var fibWorkload = &Workload{
	Name:    "fib",
	About:   "fib(param), a fork on every call, no cutoff",
	Default: 30, Tiny: 15, Timeout: 60 * time.Second,
	Tasks: func(n int) int64 { return int64(fibSeq(n+1) - 1) }, // forks
	Want:  func(n int) int64 { return int64(fibSeq(n)) },
	Impls: []Impl{
		{"steal", func(r *Run) (int64, error) {
			var v int
			err := runSteal(r, func(w *steal.Worker) { v = fibSteal(w, r.Param) })
			return int64(v), err
		}},
		{"steal-join", func(r *Run) (int64, error) {
			var v int
			err := runSteal(r, func(w *steal.Worker) { v = fibStealJoin(w, r.Param) })
			return int64(v), err
		}},
		{"steal-group", runFib(fibGroup)},
		{"steal-spawn", runFib(fibSpawn)},
		{"goroutines", func(r *Run) (int64, error) { return int64(fibGoroutines(r.Param)), nil }},
		{"errgroup", func(r *Run) (int64, error) { return int64(fibErrgroup(r.Param)), nil }},
		{"conc", func(r *Run) (int64, error) { return int64(fibConc(r.Param)), nil }},
		{"sequential", func(r *Run) (int64, error) { return int64(fibSeq(r.Param)), nil }},
	},
}

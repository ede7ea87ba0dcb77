package main

import (
	"sync"
	"time"

	"github.com/worksteal/steal"
	"github.com/worksteal/steal/bench/internal/uts"
)

// uts-bin: UTS's binomial tree (uts.Binomial): about 7M nodes, each task
// a few ns of work, subtree sizes heavy-tailed.
var utsBinWorkload = &Workload{
	Name:    "uts-bin",
	About:   "UTS binomial tree: the root has param children, every other node 5 with probability 0.2; a task per child",
	Default: 2000, Tiny: 100, Timeout: 120 * time.Second,
	Tasks: func(b0 int) int64 { return utsNodes(uts.Binomial(b0)) - 1 },
	Want:  func(b0 int) int64 { return utsNodes(uts.Binomial(b0)) },
	Impls: utsImpls(uts.Binomial),
}

// uts-geo: UTS's geometric tree of fixed shape (uts.Geometric): UTS's
// T1, 3.6M nodes of about 200 ns each.
var utsGeoWorkload = &Workload{
	Name:    "uts-geo",
	About:   "UTS geometric tree: on average 4 children per node down to depth param, 40 hash rounds per node; a task per child",
	Default: 10, Tiny: 5, Timeout: 120 * time.Second,
	Tasks: func(d int) int64 { return utsNodes(uts.Geometric(d)) - 1 },
	Want:  func(d int) int64 { return utsNodes(uts.Geometric(d)) },
	Impls: utsImpls(uts.Geometric),
}

// utsImpls makes the implementations for the tree that tree(param) returns.
func utsImpls(tree func(int) uts.Tree) []Impl {
	withErr := func(f func(*steal.Worker, *uts.Tree, uts.Node) (int64, error)) RunFunc {
		return func(r *Run) (int64, error) {
			t := tree(r.Param)
			var v int64
			var err error
			if rerr := runSteal(r, func(w *steal.Worker) { v, err = f(w, &t, t.Root()) }); rerr != nil {
				return 0, rerr
			}
			return v, err
		}
	}
	noErr := func(f func(*steal.Worker, *uts.Tree, uts.Node) int64) RunFunc {
		return withErr(func(w *steal.Worker, t *uts.Tree, n uts.Node) (int64, error) { return f(w, t, n), nil })
	}
	return []Impl{
		{"steal", noErr(utsNodeFork2)},
		{"steal-join", noErr(utsNodeJoin)},
		{"steal-group", withErr(utsGroup)},
		{"steal-spawn", withErr(utsSpawn)},
		{"sequential", func(r *Run) (int64, error) {
			t := tree(r.Param)
			return t.Count(t.Root()), nil
		}},
	}
}

var (
	utsMu    sync.Mutex
	utsCount = map[uts.Tree]int64{}
)

// utsNodes is the number of nodes of t, counted once per process.
func utsNodes(t uts.Tree) int64 {
	utsMu.Lock()
	defer utsMu.Unlock()
	n, ok := utsCount[t]
	if !ok {
		n = t.Count(t.Root())
		utsCount[t] = n
	}
	return n
}

package main

import (
	"fmt"
	"slices"
	"time"
)

// RunFunc is one implementation of a workload: it does the work for r.Param
// and returns the figure the workload checks (a sum, a count).
type RunFunc func(r *Run) (int64, error)

// Impl is one implementation of a workload.
type Impl struct {
	Name string
	Fn   RunFunc
}

// Workload is one of the compared shapes of work.
type Workload struct {
	Name    string
	About   string
	Default int           // -param default
	Tiny    int           // -param tiny: for the CI smoke run
	Timeout time.Duration // per-run timeout unless -timeout is given
	Tasks   func(param int) int64
	Want    func(param int) int64 // the checked result; nil: Check only
	Check   func(r *Run, got int64) error
	Setup   func(r *Run) // before each run, untimed
	Impls   []Impl
	// Deadlocks names the implementations that deadlock on this workload
	// by design: their timeout is the expected result.
	Deadlocks []string
}

// implOrder is the order of implementations in tables and charts.
var implOrder = []string{"steal", "steal-join", "steal-group", "steal-spawn", "steal-batch", "steal-go", "steal-go-max", "goroutines", "errgroup", "ants", "pond", "conc", "channel", "sequential"}

// workloads in the order they run and are published.
var workloads = []*Workload{
	fibWorkload, spawnWorkload, spawn8Workload, spawnInnerWorkload, chainedWorkload, nestedWorkload,
	imbalancedWorkload, sortWorkload, idleWorkload, memoryWorkload, utsBinWorkload, utsGeoWorkload,
}

// expectedTimeout reports whether r is the timeout of an implementation
// that deadlocks on r's workload by design.
func expectedTimeout(r Result) bool {
	wl := lookupWorkload(r.Workload)
	return !r.OK && r.Error == errTimeout.Error() && wl != nil && slices.Contains(wl.Deadlocks, r.Impl)
}

func lookupWorkload(name string) *Workload {
	for _, w := range workloads {
		if w.Name == name {
			return w
		}
	}
	return nil
}

func (w *Workload) impl(name string) RunFunc {
	for _, im := range w.Impls {
		if im.Name == name {
			return im.Fn
		}
	}
	return nil
}

// implNames lists the workload's implementations in implOrder.
func (w *Workload) implNames() []string {
	var names []string
	for _, n := range implOrder {
		if w.impl(n) != nil {
			names = append(names, n)
		}
	}
	return names
}

func (w *Workload) check(r *Run, got int64) error {
	if w.Check != nil {
		if err := w.Check(r, got); err != nil {
			return err
		}
	}
	if w.Want != nil {
		if want := w.Want(r.Param); got != want {
			return fmt.Errorf("wrong result: got %d, want %d", got, want)
		}
	}
	return nil
}

// peerImpls makes the Impls of a workload written once against the pool
// abstraction, for every peer that is a plain submit-and-wait pool.
func peerImpls(run func(r *Run, np newPool) (int64, error)) []Impl {
	var out []Impl
	for _, pp := range peerPools {
		pp := pp
		out = append(out, Impl{pp.name, func(r *Run) (int64, error) { return run(r, pp.make) }})
	}
	return out
}

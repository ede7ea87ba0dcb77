package main

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"
)

// A workload is what one trial runs. Its jobs either do nothing (Job 0) or
// sleep Job: sleeping jobs stand for I/O-bound work, which is why more
// workers than cores still adds capacity.
type workload struct {
	Name string        `json:"name"`
	Kind string        `json:"kind"` // kindThroughput, kindSkew or kindTree
	Job  time.Duration `json:"job_ns"`
	// CPU jobs spin for Job instead of sleeping; they are run only up to
	// MaxW workers (the machine's cores), where the comparison is fair.
	CPU  bool `json:"cpu,omitempty"`
	MaxW int  `json:"max_workers,omitempty"`
	Jobs int  `json:"jobs,omitempty"` // throughput and skew
	// Bundle, when set, submits a throughput workload's jobs in calls
	// of this many, one batch call each (system.submitBatch: the
	// cluster package's Client.SubmitBatch, or SubmitBundle; a central
	// queue publishes a call's jobs asynchronously and awaits every ack),
	// instead of one submission a job.
	Bundle int `json:"bundle,omitempty"`
	// Tree: every node spawns Fanout children until Depth. Roots, when
	// set, lists the depth of each of several roots (roots of uneven size)
	// and Depth is not used.
	Fanout int   `json:"fanout,omitempty"`
	Depth  int   `json:"depth,omitempty"`
	Roots  []int `json:"roots,omitempty"`
	// Spread: a tree's roots are submitted to any worker (the central
	// queue: all in the stream, as always), not all to the first.
	Spread bool `json:"spread,omitempty"`
	// Limit, when set, bounds a trial instead of trialLimit's default.
	Limit time.Duration `json:"limit_ns,omitempty"`
}

const (
	// kindThroughput: Jobs submitted by submitters goroutines at once, to
	// any worker; the clock runs from the first submission to the last
	// completion.
	kindThroughput = "throughput"
	// kindSkew: Jobs all placed on the first worker (for the central
	// queue: all in the stream) before the clock starts.
	kindSkew = "skew"
	// kindTree: one root job (or the roots of Roots) on the first worker;
	// each job spawns its children when its own work is done. A job's
	// payload is the depth of the tree below it: a job of payload d > 0
	// spawns Fanout jobs of payload d-1.
	kindTree = "tree"
)

// submitters is how many goroutines submit a throughput workload.
const submitters = 8

// total is the number of jobs the workload runs, spawned ones included.
func (wl workload) total() int {
	if wl.Kind != kindTree {
		return wl.Jobs
	}
	n := 0
	for _, d := range wl.rootDepths() {
		level := 1
		for range d + 1 {
			n += level
			level *= wl.Fanout
		}
	}
	return n
}

// rootDepths lists the depth of each root of a tree workload.
func (wl workload) rootDepths() []int {
	if len(wl.Roots) > 0 {
		return wl.Roots
	}
	return []int{wl.Depth}
}

// lowerBound is what no schedule on w workers of one slot can beat: the
// work divided by w, or the longest chain of jobs (a tree's depth).
//
// CPU-bound jobs run on at most as many workers at once as there are
// cores, so their work is divided by min(w, cores).
func (wl workload) lowerBound(w int) time.Duration {
	if wl.CPU {
		w = min(w, runtime.NumCPU())
	}
	work := time.Duration(wl.total()) * wl.Job / time.Duration(w)
	chain := wl.Job
	if wl.Kind == kindTree {
		chain = time.Duration(slices.Max(wl.rootDepths())+1) * wl.Job
	}
	return max(work, chain)
}

// children is how many jobs a job of payload below spawns (see kindTree).
func (wl workload) children(below int) int {
	if wl.Kind != kindTree || below <= 0 {
		return 0
	}
	return wl.Fanout
}

// work is a job's own work: d of sleep, or of spinning for CPU jobs.
func (wl workload) work() {
	switch {
	case wl.Job <= 0:
	case wl.CPU:
		for t0 := time.Now(); time.Since(t0) < wl.Job; {
		}
	default:
		time.Sleep(wl.Job)
	}
}

// A job's payload is the depth of the tree below it, in decimal.
func depthPayload(d int) []byte { return []byte(strconv.Itoa(d)) }

func parseDepth(p []byte) int {
	d, _ := strconv.Atoi(string(p))
	return d
}

func (wl workload) String() string {
	return fmt.Sprintf("%s (%d jobs)", wl.Name, wl.total())
}

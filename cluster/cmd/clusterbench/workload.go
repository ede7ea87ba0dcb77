package main

import (
	"fmt"
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
	// Tree: every node spawns Fanout children until Depth.
	Fanout int `json:"fanout,omitempty"`
	Depth  int `json:"depth,omitempty"`
}

const (
	// kindThroughput: Jobs submitted by submitters goroutines at once, to
	// any worker; the clock runs from the first submission to the last
	// completion.
	kindThroughput = "throughput"
	// kindSkew: Jobs all placed on the first worker (for the central
	// queue: all in the stream) before the clock starts.
	kindSkew = "skew"
	// kindTree: one root job on the first worker; each job spawns its
	// children when its own work is done.
	kindTree = "tree"
)

// submitters is how many goroutines submit a throughput workload.
const submitters = 8

// total is the number of jobs the workload runs, spawned ones included.
func (wl workload) total() int {
	if wl.Kind != kindTree {
		return wl.Jobs
	}
	n, level := 0, 1
	for range wl.Depth + 1 {
		n += level
		level *= wl.Fanout
	}
	return n
}

// lowerBound is what no schedule on w workers of one slot can beat: the
// work divided by w, or the longest chain of jobs (a tree's depth).
func (wl workload) lowerBound(w int) time.Duration {
	work := time.Duration(wl.total()) * wl.Job / time.Duration(w)
	chain := wl.Job
	if wl.Kind == kindTree {
		chain = time.Duration(wl.Depth+1) * wl.Job
	}
	return max(work, chain)
}

// children is how many jobs a job at depth spawns.
func (wl workload) children(depth int) int {
	if wl.Kind != kindTree || depth >= wl.Depth {
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

// A job's payload is its depth in the tree, in decimal.
func depthPayload(d int) []byte { return []byte(strconv.Itoa(d)) }

func parseDepth(p []byte) int {
	d, _ := strconv.Atoi(string(p))
	return d
}

func (wl workload) String() string {
	if wl.Kind == kindTree {
		return fmt.Sprintf("%s (%d jobs)", wl.Name, wl.total())
	}
	return fmt.Sprintf("%s (%d jobs)", wl.Name, wl.Jobs)
}

package coord

import (
	"fmt"
	"math/bits"
)

// Distribution decides which worker receives each of n initial jobs. Jobs are
// placed in id order at the back of the deques, so within a worker the
// lowest id is at the front.
//
// The zero value, First, is the default: every job starts on the first
// worker, as in the single-producer demos, so that all balancing is left to
// stealing.
type Distribution int

// The distributions.
const (
	// First puts every job on the first worker.
	First Distribution = iota
	// Blocks gives each worker a contiguous block of ids, sizes differing
	// by at most one (worker i gets ids [i*n/w, (i+1)*n/w)).
	Blocks
	// RoundRobin deals job i to worker i mod w.
	RoundRobin
	// Skewed gives half the jobs to the first worker, half of the rest to
	// the second, and so on; the last worker takes what remains.
	Skewed
)

var distributionNames = [...]string{First: "first", Blocks: "blocks", RoundRobin: "round_robin", Skewed: "skewed"}

// String returns the wire name: "first", "blocks", "round_robin", "skewed".
func (d Distribution) String() string {
	if d < 0 || int(d) >= len(distributionNames) {
		return fmt.Sprintf("Distribution(%d)", int(d))
	}
	return distributionNames[d]
}

// ParseDistribution maps a wire name to its Distribution.
func ParseDistribution(name string) (Distribution, error) {
	for d, n := range distributionNames {
		if n == name {
			return Distribution(d), nil
		}
	}
	return 0, fail(Invalid, fmt.Sprintf("distribution %q (want first, blocks, round_robin or skewed)", name))
}

// Place calls place(job, worker) for job = 0..jobs-1 in order. It does no
// allocation, so a simulator can place millions of jobs cheaply. It places
// nothing when workers < 1, and a Distribution other than the four listed
// places like First.
func (d Distribution) Place(jobs, workers int, place func(job, worker int)) {
	if workers < 1 {
		return
	}
	switch d {
	case RoundRobin:
		for j := range jobs {
			place(j, j%workers)
		}
	case Blocks:
		for w, start := 0, 0; w < workers; w++ {
			end := blockStart(w+1, jobs, workers)
			for j := start; j < end; j++ {
				place(j, w)
			}
			start = end
		}
	case Skewed:
		j := 0
		for w := range workers {
			share := (jobs - j + 1) / 2
			if w == workers-1 {
				share = jobs - j
			}
			for end := j + share; j < end; j++ {
				place(j, w)
			}
		}
	default: // First
		for j := range jobs {
			place(j, 0)
		}
	}
}

// blockStart is w*jobs/workers, the first job of Blocks' block w, for
// 0 <= w <= workers. The product is taken in 128 bits: in an int it wraps
// on 32-bit platforms at counts the simulator accepts (a million workers,
// 2^26 jobs), which placed jobs out of order and lost most of them. The
// quotient is at most jobs, so it fits.
func blockStart(w, jobs, workers int) int {
	hi, lo := bits.Mul64(uint64(w), uint64(jobs))
	q, _ := bits.Div64(hi, lo, uint64(workers))
	return int(q)
}

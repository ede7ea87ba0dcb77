package sim

import "time"

// Task is one job in a simulation.
type Task struct {
	// Key identifies the job to the caller (Workload uses the job's index)
	// and seeds the jobs it spawns.
	Key uint64
	// Cost is the job's remaining run time.
	Cost time.Duration
	// Depth is the spawn generation: 0 for a job that was queued at the
	// start, parent's depth + 1 for a spawned one.
	Depth int
}

// Spawn makes jobs create more jobs when they complete, as a fork-join
// program does. The children go on the front of the completing worker's
// deque (or the back of the central queue), so that worker runs them next
// unless they are stolen first.
type Spawn struct {
	// Prob is the probability that a completing job spawns.
	Prob float64
	// Children is how many jobs a spawning job creates, at most MaxTasks;
	// a job whose children would take the run past MaxTasks spawns none.
	Children int
	// Depth bounds the generations: jobs at this depth spawn no more.
	Depth int
	// Cost is the cost distribution of spawned jobs.
	Cost Cost
}

// MaxTasks caps the jobs of one run, spawned ones included, so that a
// runaway spawn tree cannot exhaust memory; past it jobs stop spawning.
const MaxTasks = 1 << 26

// children returns how many children parent spawns; a pure function of the
// parent's key, so every policy sees the same spawn tree.
func (s Spawn) children(parent Task, seed uint64) int {
	if s.Children <= 0 || parent.Depth >= s.Depth || unit(parent.Key^mix(seed^0x5ba3)) > s.Prob {
		return 0
	}
	return s.Children
}

// childKey derives the key of parent's c-th child.
func childKey(parent uint64, c int) uint64 {
	return mix(parent*0x2545f4914f6cdd1d + uint64(c) + 1)
}

// MaxWorkers caps the workers of a Workload, which Validate enforces: a run
// takes a few hundred bytes per worker, so a mistyped count would
// otherwise exhaust memory before the first event, and workers are indexed
// by int32.
const MaxWorkers = 1 << 20

package node

import (
	"time"

	"github.com/worksteal/steal/coord"
)

// Limits on what one request may ask of the node, so that no message of
// at most MaxMessageBytes can make it take much more than a second of CPU
// or a few hundred MB of memory (a million jobs and their simulation take
// about 360 MB at their peak). A request over a limit gets error 12 whose
// text names the limit and the value asked for, and changes nothing.
const (
	// MaxWorkers caps init's workers.
	MaxWorkers = 10_000
	// MaxJobs caps the live jobs, queued and in flight: init's
	// jobs_to_distribute, and push_job once the cluster holds this many.
	MaxJobs = 1_000_000
	// MaxPayloadBytes caps the bytes of the payloads of the live jobs,
	// stored compact: push_job's payload once they would pass it. Each
	// payload is at most a message's size, but a million of them would
	// not fit in memory.
	MaxPayloadBytes = 256 << 20
	// MaxInitJobs is MaxJobs, under its earlier name.
	//
	// Deprecated: use MaxJobs.
	MaxInitJobs = MaxJobs
	// MaxDuration caps every millisecond field: run_simulation's
	// duration_ms, cost_ms, cost.mean_ms and steal_latency_ms.
	MaxDuration = 365 * 24 * time.Hour
	// MaxPolicies caps the policies of one run_simulation.
	MaxPolicies = 16
	// MaxSimulatedJobs caps the queued jobs times the policies of one
	// run_simulation: each policy's run copies and schedules every queued
	// job, so a million jobs can be simulated under one policy at a time,
	// 62,500 under sixteen.
	MaxSimulatedJobs = 1_000_000
	// MaxSimulatedEvents caps the events (a job finishing, a steal request
	// arriving) that one run_simulation may take over all its policies. A
	// run needs an event per job and, with a steal latency, one per steal
	// request, which can run ahead of the jobs when thieves often find
	// their victim emptied; a request that needs more is refused.
	MaxSimulatedEvents = 4_000_000
	// MaxReplyBytes caps a reply. A run_simulation reply holds three
	// numbers per worker per policy; a request whose reply could exceed
	// the cap, worker names included, is refused before it runs. Other
	// replies stay below it by the caps on messages and workers.
	MaxReplyBytes = 16 << 20
)

// keptReplyBytes is the largest reply buffer kept for reuse between
// messages.
const keptReplyBytes = 1 << 20

// Upper bounds on the bytes of a run_simulation result, for checking
// MaxReplyBytes before running: everything but the worker names, for the
// result as a whole (its keys, policy name and ten numbers of at most 32
// characters) and per worker (separators, at most MaxJobs completed and
// queued, and at most MaxDuration idle, in ms to three decimals).
const (
	resultBytes = 1024
	workerBytes = 3*len(`: , `) + 2*len("1000000") + len("31536000000.000")
	tailBytes   = 64 // `], "all_idle": false}}` and the newline
)

// checkSimulatedJobs refuses a run_simulation over MaxSimulatedJobs.
func (n *Node) checkSimulatedJobs(policies int) error {
	queued := 0
	for _, w := range n.cluster.Workers() {
		queued += w.QueueSize
	}
	if queued*policies > MaxSimulatedJobs {
		return malformed("run_simulation of %d queued jobs under %d policies would simulate %d jobs, over the limit of %d (MaxSimulatedJobs); ask for fewer policies",
			queued, policies, queued*policies, MaxSimulatedJobs)
	}
	return nil
}

// checkReplyBytes refuses a run_simulation whose reply could exceed
// MaxReplyBytes, before it runs.
func (n *Node) checkReplyBytes(snap []coord.Snapshot, policies int) error {
	if size := len(n.enc.buf) + replyBound(snap, policies); size > MaxReplyBytes {
		return malformed("run_simulation's reply for %d workers under %d policies could take %d bytes, over the limit of %d (MaxReplyBytes); ask for fewer policies",
			len(snap), policies, size, MaxReplyBytes)
	}
	return nil
}

// replyBound is an upper bound on the bytes of a run_simulation reply for
// these workers and policies, beyond the envelope written before it.
func replyBound(snap []coord.Snapshot, policies int) int {
	names := 0
	var quoted []byte
	for _, s := range snap {
		quoted = appendString(quoted[:0], s.Name)
		names += len(quoted)
	}
	return policies*(resultBytes+3*names+len(snap)*workerBytes) + tailBytes
}

// Package coord is the coordinator of a work-stealing cluster, written as a
// deterministic, single-threaded state machine.
//
// # Model
//
// A Cluster has an ordered list of named workers. Each worker owns a deque of
// jobs and a set of jobs in flight (taken by the worker and not yet
// completed):
//
//   - the owner pushes and pops at the front of its deque (LIFO, so the job
//     it queued last, whose data is still warm, runs next);
//   - a thief takes one job from the back of a victim's deque and pushes it on
//     its own front, so the stolen job runs next on the thief;
//   - Inject places jobs at the back of a deque, the way initial or external
//     work enters the cluster.
//
// A worker is idle when its deque is empty and nothing is in flight; the
// cluster is idle when every worker is.
//
// # Invariants
//
// Every job id is live at most once: it sits in exactly one deque or is in
// flight at exactly one worker, until Complete removes it. Check verifies this
// (the conservation property), and the tests drive random operation sequences
// through it.
//
// Every operation either succeeds or returns an *Error and leaves the state
// untouched: arguments are validated before anything is mutated, and the
// seeded random victim choice draws only once a victim is known to exist.
//
// # Costs
//
// There are no locks, goroutines or I/O: callers serialise access (the node
// package feeds it one message at a time). Push, Pop from the own deque,
// Steal's take and Inject are O(1) amortised; choosing a victim is O(k) in
// the number of candidates; Complete is O(1) amortised, however many jobs
// are in flight; Snapshot and Check are O(jobs).
package coord

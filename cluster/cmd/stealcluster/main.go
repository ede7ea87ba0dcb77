// Command stealcluster is the full steal program: the root program's demo, node
// and sim, and the commands that run a work-stealing cluster over NATS
// (package cluster).
//
//	stealcluster cluster up     an embedded NATS server and N workers, until interrupted; a status line every -every
//	stealcluster cluster demo   the same with a skewed workload of spawning jobs; exits when done
//	stealcluster worker         one worker process that joins a cluster
//	stealcluster node --nats    the node protocol (package node) against a cluster on NATS
//
// From the repository root:
//
//	cd cluster && go run ./cmd/stealcluster cluster demo
//
// # Job types
//
// Every worker the program starts (cluster up, cluster demo, worker)
// registers two handlers:
//
//	tree   payload {"depth": d, "fanout": k, "sleep_ms": s}: sleeps s ms,
//	       as a job waiting on I/O would, then, if d > 0, spawns k children
//	       {"depth": d-1, "fanout": k, "sleep_ms": s} on its own worker.
//	       At most 10,000 ms, fanout 10, and 100,000 jobs in the tree.
//	sleep  sleeps for the job's cost hint, in microseconds (at most 60 s);
//	       the payload is ignored. node --nats's push_job submits these.
//
// A job of another type is recorded as failed with code unknown_type.
//
// # stealcluster node --nats
//
// stealcluster node -nats URL serves the protocol of package node (go doc
// github.com/worksteal/steal/node) on stdin and stdout, replies in the same
// format and order, with the same error codes, but the workers are the
// live workers of the cluster on NATS, named as they joined (w1, w2, ...
// under cluster up). What each message does there:
//
//   - push_job submits a job to the worker's deque, at its back, where
//     submitted work enters (without -nats, as in steal node, it goes on
//     the front), and replies once the job is stored. Its type is job_type (default
//     "sleep"), its payload the compact JSON of payload, its cost hint
//     cost_ms in microseconds: a sleep job sleeps cost_ms (at most 60,000).
//     queue_size is the worker's queue as it answered right after: it may
//     have started the job already; it is left out if the worker did not
//     answer. Error 1000 when no live worker has the name, 1004 when the id
//     is queued, running or completed on the cluster, 12 for an empty
//     worker or an invalid job_id, job_type, payload or cost_ms.
//   - steal_job asks the candidate with the longest queue (busy_workers,
//     or every other live worker; ties to the first listed, or by name) to
//     give one job from the back of its deque to thief_worker, which runs
//     it: the move is the cluster's own steal (cluster.Client.Steal).
//     victim_queue_size is the victim's queue after it. Error 1000 when the
//     thief or a candidate is not a live worker, 1002 when no candidate
//     has a queued job, or the victim's emptied before the request reached
//     it.
//   - check_cluster_state lists every live worker that answered, by name,
//     with its queue length and "busy" while it holds any job (queued,
//     running or moving), else "idle"; all_idle is true when every worker
//     listed is idle and cluster.Client.Idle, a stricter check made just
//     before the list is read, said so: no job queued, running or moving
//     anywhere, dead workers' records included.
//   - init and run_simulation act, exactly as without -nats, on a cluster
//     simulated in this process: run_simulation compares policies on the
//     jobs init queued there. They never touch the real cluster.
//   - pop_job lets the process on stdin act as a worker. A worker name no
//     live worker holds becomes, on its first pop_job, a worker this
//     program hosts (a cluster.Worker with one slot that steals one job at a
//     time, on the same cluster, its lease kept by this program): push_job
//     can then name it, and its deque and steals are the cluster's own. Its
//     handler runs nothing: it hands each job to pop_job and holds it until
//     complete_job. pop_job waits up to 1 s for that job: the front of the
//     worker's own deque (source "own") or, when that is empty, one its
//     idle loop stole (source "stolen", victim the worker it came from, as
//     cluster.Job.StolenFrom says; a job moved to it by steal_job also counts
//     as stolen). The reply carries cost_ms, payload (when the job has one)
//     and queue_size, the worker's queue after the pop. Error 1002 when no
//     job came in time, or at once when the worker already has a job in
//     flight: a hosted worker holds one at a time. Error 10 when a
//     live worker that this program does not host has the name (it runs
//     its own jobs), 12 for an invalid name.
//   - complete_job retires a job in flight at a hosted worker: the worker
//     records the completion (an empty result) in the ledger, and the
//     reply comes once the ledger holds it, with all_idle as in
//     check_cluster_state. Error 1003 when the job is not in flight at
//     that worker (never popped there, already completed, or the worker is
//     not hosted here).
//
// When the input ends, the hosted workers close and give up their leases:
// their queued jobs and the jobs popped but not completed go back to the
// cluster (a surviving worker takes them over, or the next worker to
// join if none survives) and run again there; none
// is lost, and none is recorded as completed by the hosted worker. Killed
// without closing, the program's hosted workers are taken for dead when
// their leases expire, with the same result.
//
// An error reply changes nothing on the cluster, except that a pop_job
// that started a hosted worker keeps it even when it answers 1002. A
// hosted worker holds at most one job out of its deque, waiting for
// pop_job; check_cluster_state counts that job as running. A request the cluster did
// not answer in time gets error 11 (Maelstrom's "temporarily
// unavailable"): a push_job may then have been stored, and sending it again
// with the same job_id is safe.
//
// Signals: cluster up, worker and cluster demo stop on SIGINT or SIGTERM:
// each worker closes (its queued jobs go to a survivor), child processes
// are stopped and waited for, and the embedded server shuts down.
package main

import (
	"os"

	"github.com/worksteal/steal/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cli.Program = "stealcluster"
	return cli.Run(args, os.Stdin, os.Stdout, os.Stderr, commands()...)
}

// commands are the commands this program adds to the root program's.
func commands() []cli.Command {
	return []cli.Command{
		{Name: "node", Summary: "run a cluster node: one JSON message per line on stdin, replies on stdout;\n" +
			"          with --nats URL, against a cluster on NATS (stealcluster node -h)", Run: runNode},
		{Name: "cluster", Summary: "cluster up: NATS and workers until interrupted; cluster demo: watch them steal", Run: runCluster},
		{Name: "worker", Summary: "join a cluster on NATS as one worker (stealcluster worker -h)", Run: runWorker},
	}
}

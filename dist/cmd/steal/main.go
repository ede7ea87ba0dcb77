// Command steal is the full steal program: the root program's demo, node
// and sim, and the commands that run a work-stealing cluster over NATS
// (package dist).
//
//	steal cluster up     an embedded NATS server and N workers, until interrupted
//	steal cluster demo   the same with a skewed workload of spawning jobs; exits when done
//	steal worker         one worker process that joins a cluster
//	steal node --nats    the node protocol (package node) against a cluster on NATS
//
// From the repository root:
//
//	cd dist && go run ./cmd/steal cluster demo
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
	return cli.Run(args, os.Stdin, os.Stdout, os.Stderr, commands()...)
}

// commands are the commands this program adds to the root program's.
func commands() []cli.Command {
	return []cli.Command{
		{Name: "node", Summary: "run a cluster node: one JSON message per line on stdin, replies on stdout;\n" +
			"          with --nats URL, against a cluster on NATS (steal node -h)", Run: runNode},
		{Name: "cluster", Summary: "cluster up: NATS and workers until interrupted; cluster demo: watch them steal", Run: runCluster},
		{Name: "worker", Summary: "join a cluster on NATS as one worker (steal worker -h)", Run: runWorker},
	}
}

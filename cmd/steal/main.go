// Command steal runs the work-stealing pool's demo, the cluster node and
// the simulator.
//
//	steal demo   watch the pool balance an imbalanced workload
//	steal node   serve the protocol on stdin/stdout (see package node)
//	steal sim    compare scheduling policies in simulation (see package sim)
//
// The commands that run a cluster over NATS (steal cluster, steal worker,
// steal node --nats) are in the full program, cluster/cmd/stealcluster, so that this
// one needs nothing outside the standard library: from the repository
// root, cd cluster && go run ./cmd/stealcluster cluster demo.
package main

import (
	"os"

	"github.com/worksteal/steal/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

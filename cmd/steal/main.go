// Command steal runs the work-stealing cluster node and simulator.
//
//	steal demo   watch the pool balance an imbalanced workload
//	steal node   serve the protocol on stdin/stdout (see package node)
//	steal sim    compare scheduling policies in simulation (see package sim)
//
// Subcommands are dispatched in run; add new ones there.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: steal <command> [flags]

commands:
  demo    run 1000 tasks spawned on one worker and watch the others steal (steal demo -h)
  node    run a cluster node: one JSON message per line on stdin, replies on stdout
  sim     simulate scheduling policies and print a comparison table (steal sim -h)
`

// run dispatches a subcommand and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "node":
		return runNode(args[1:], stdin, stdout, stderr)
	case "sim":
		return runSim(args[1:], stdout, stderr)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "steal: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/worksteal/steal/node"
)

// runNode serves the node protocol until stdin ends; it exits 0 once every
// message has been answered.
func runNode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("steal node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: steal node < messages\n\nReads one JSON message per line (a value may span lines) and writes one reply per line.")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := node.New().Serve(stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "steal node:", err)
		return 1
	}
	return 0
}

package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/worksteal/steal/node"
)

// runNode serves the node protocol until stdin ends; it exits 0 once every
// message has been answered. -nats, which serves it against a cluster on
// NATS, belongs to the full program: asked for it, runNode says so and
// returns 2.
func runNode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if asksNATS(args) {
		notHere(stderr, Program+" node --nats")
		return 2
	}
	fs := flag.NewFlagSet(Program+" node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: "+Program+" node < messages\n\n"+
			"Reads one JSON message per line (a value may span lines) and writes one reply per line.\n"+
			"Input that is not a message is reported on stderr and skipped. The messages, their\n"+
			"fields and error codes: go doc github.com/worksteal/steal/node")
	}
	if code := Parse(fs, args, stderr); code >= 0 {
		return code
	}
	if err := node.New().Serve(stdin, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, Program+" node:", err)
		return 1
	}
	return 0
}

// asksNATS reports whether args hold a -nats or --nats flag, before any
// argument that ends the flags.
func asksNATS(args []string) bool {
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "nats" {
			return true
		}
	}
	return false
}

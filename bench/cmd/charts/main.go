// Command charts draws the steal program's recordings as SVG charts. It
// lives in the bench module, which already depends on a plotting library
// (gonum.org/v1/plot), so that the steal program and library need none.
//
// From the repository root:
//
//	go run ./cmd/steal demo -trace trace.json
//	(cd bench && go run ./cmd/charts timeline) < trace.json > timeline.svg
//
//	go run ./cmd/steal sim -json -samples | (cd bench && go run ./cmd/charts sim) > sim.svg
//
//	(cd dist && go run ./cmd/clusterbench -chart /tmp/scaling.json)
//	(cd bench && go run ./cmd/charts scaling /tmp/scaling.json) > docs/cluster-scaling.svg
//
// Each subcommand reads the named file, or standard input, and writes the
// SVG document to standard output. Input it cannot draw is an error
// (status 1) and writes nothing to standard output; a usage error is
// status 2.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: charts <command> [flags] [FILE]

commands:
  timeline [-title TEXT]  draw a trace from steal demo -trace (or steal.Pool.WriteTrace):
                          a lane per worker, tasks as bars, steals as arrows
  sim                     draw steal sim -json -samples output: queue lengths per worker
                          under each policy, and every policy's utilisation
  scaling                 draw cluster/cmd/clusterbench -chart output: jobs/s against workers,
                          measured and simulated, on log-log axes

FILE defaults to standard input; the SVG goes to standard output.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs one subcommand and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd := args[0]
	fs := flag.NewFlagSet("charts "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	title := fs.String("title", "", "the chart's title (default: the one the trace records)")
	switch cmd {
	case "timeline", "sim", "scaling":
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "charts: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 1 || (cmd != "timeline" && *title != "") {
		fmt.Fprintf(stderr, "charts %s: want at most one input file and no other flags than shown\n\n%s", cmd, usage)
		return 2
	}
	data, err := readInput(fs.Arg(0), stdin)
	if err == nil {
		err = render(cmd, data, *title, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "charts %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// readInput reads the named file, or stdin when name is empty or "-".
func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "" || name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// render draws the chart in memory first, so that a failure writes nothing.
func render(cmd string, data []byte, title string, out io.Writer) error {
	var svg bytes.Buffer
	switch cmd {
	case "timeline":
		tl, err := readTimeline(data)
		if err != nil {
			return err
		}
		if err := drawTimeline(&svg, tl, title); err != nil {
			return err
		}
	case "sim":
		doc, err := readSim(data)
		if err != nil {
			return err
		}
		if err := drawSim(&svg, doc); err != nil {
			return err
		}
	case "scaling":
		doc, err := readScaling(data)
		if err != nil {
			return err
		}
		if err := drawScaling(&svg, doc); err != nil {
			return err
		}
	}
	_, err := out.Write(svg.Bytes())
	return err
}

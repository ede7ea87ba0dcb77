// Command bench compares steal with what Go users pick today (goroutines,
// errgroup, ants, pond, conc, a channel of funcs) on the same workloads,
// checking every result. Each (workload, impl) runs in a child process of
// its own, so a deadlocked peer is killed cleanly and no pool's leftovers
// affect the next measurement.
//
//	cd bench && go run . [flags] WORKLOAD...
//	cd bench && go run . -publish      # regenerate docs/benchmarks.*
//
// See docs/benchmarks.md for the workloads, the figures and how to read them.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

type options struct {
	impls   []string
	runs    int
	param   string
	json    bool
	timeout time.Duration
	publish bool
	docs    string
	brief   bool
}

func main() {
	if spec := os.Getenv(childEnv); spec != "" {
		childMain(spec)
		return
	}
	var o options
	impl := flag.String("impl", "", "comma-separated implementations (default: all that support the workload)")
	flag.IntVar(&o.runs, "runs", 5, "rounds per workload: in each, every implementation makes one measured run, after a warm-up, in a fresh process")
	flag.StringVar(&o.param, "param", "", "workload size: a number, or \"tiny\" (default: each workload's own)")
	flag.BoolVar(&o.json, "json", false, "print one JSON object per (workload, impl) per line")
	flag.BoolVar(&o.brief, "brief", false, "print one line per workload, saying which implementations passed,\n"+
		"which timed out as expected (deadlocked by design) and which failed, instead of the table")
	flag.DurationVar(&o.timeout, "timeout", 0, "per-run timeout (default: 5s for nested, 60s otherwise)")
	flag.BoolVar(&o.publish, "publish", false, "run every workload with defaults and write docs/benchmarks.{md,json} and the charts")
	flag.StringVar(&o.docs, "docs", "../docs", "where -publish writes")
	rerenderOnly := flag.Bool("rerender", false, "rewrite docs/benchmarks.md and the charts from docs/benchmarks.json, without measuring")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run . [flags] WORKLOAD...\nworkloads:\n")
		for _, w := range workloads {
			fmt.Fprintf(os.Stderr, "  %-12s %s (default %d, tiny %d)\n", w.Name, w.About, w.Default, w.Tiny)
		}
		fmt.Fprintf(os.Stderr, "implementations: %s\nflags:\n", strings.Join(implOrder, ", "))
		flag.PrintDefaults()
	}
	flag.Parse()
	if *impl != "" {
		o.impls = strings.Split(*impl, ",")
	}
	if *rerenderOnly {
		if err := rerender(o.docs); err != nil {
			fmt.Fprintln(os.Stderr, "rerender:", err)
			os.Exit(1)
		}
		return
	}
	if o.publish {
		if err := checkPublish(o, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := publish(o); err != nil {
			fmt.Fprintln(os.Stderr, "publish:", err)
			os.Exit(1)
		}
		return
	}
	names := flag.Args()
	if len(names) == 0 || (len(names) == 1 && names[0] == "all") {
		names = nil
		for _, w := range workloads {
			names = append(names, w.Name)
		}
	}
	specs, err := plan(names, o)
	if err == nil && o.brief && o.json {
		err = fmt.Errorf("-brief and -json: choose one")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		flag.Usage()
		os.Exit(2)
	}
	var results []Result
	if o.brief {
		results = runBrief(os.Stdout, specs)
	} else {
		results = runAll(specs, o.json)
	}
	if !o.json && !o.brief {
		printTable(os.Stdout, results)
	}
	if bad := failures(results); len(bad) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL:", strings.Join(bad, "; "))
		os.Exit(1)
	}
}

// plan expands workloads and impls into the runs to make.
func plan(names []string, o options) ([]Spec, error) {
	// Fewer than one round is an error, not one round: -publish records
	// -runs as the rounds behind every median.
	if o.runs < 1 {
		return nil, fmt.Errorf("-runs %d: at least 1", o.runs)
	}
	var specs []Spec
	for _, name := range names {
		wl := lookupWorkload(name)
		if wl == nil {
			return nil, fmt.Errorf("unknown workload %q", name)
		}
		param := wl.Default
		switch o.param {
		case "":
		case "tiny":
			param = wl.Tiny
		default:
			n, err := strconv.Atoi(strings.ReplaceAll(o.param, "_", ""))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad -param %q", o.param)
			}
			param = n
		}
		timeout := wl.Timeout
		if o.timeout > 0 {
			timeout = o.timeout
		}
		impls := wl.implNames()
		if o.impls != nil {
			impls = nil
			for _, im := range o.impls {
				if wl.impl(im) != nil {
					impls = append(impls, im)
				} else if !known(im) {
					return nil, fmt.Errorf("unknown implementation %q", im)
				}
			}
		}
		for _, im := range impls {
			specs = append(specs, Spec{Workload: name, Impl: im, Param: param, Runs: o.runs, Timeout: timeout})
		}
	}
	return specs, nil
}

func known(impl string) bool {
	for _, n := range implOrder {
		if n == impl {
			return true
		}
	}
	return false
}

// runAll runs every spec in child processes, each workload's
// implementations interleaved (see interleave), printing JSON lines as each
// workload finishes (with -json), or progress on stderr: a dot per run,
// then a line per implementation.
func runAll(specs []Spec, jsonOut bool) []Result {
	run := runChild
	if !jsonOut {
		run = func(s Spec) Result {
			fmt.Fprint(os.Stderr, ".")
			return runChild(s)
		}
	}
	return interleave(specs, run, func(rs []Result) {
		for _, r := range rs {
			if jsonOut {
				writeJSON(os.Stdout, r)
				continue
			}
			fmt.Fprintf(os.Stderr, "\n%-12s %-11s %s", r.Workload, r.Impl, summary(r))
		}
		if !jsonOut {
			fmt.Fprintln(os.Stderr)
		}
	})
}

// failures are the results that make the harness exit non-zero: any failure
// of steal itself, and a wrong result, crash or timeout of anyone, except
// the timeout of a peer that deadlocks on the workload by design (nested's
// bounded pools; Workload.Deadlocks): that is a result, not a failure. A
// peer timing out elsewhere is too slow or hung, and must not pass quietly.
func failures(results []Result) []string {
	var bad []string
	for _, r := range results {
		if r.OK {
			continue
		}
		if strings.HasPrefix(r.Impl, "steal") || !expectedTimeout(r) {
			bad = append(bad, fmt.Sprintf("%s/%s: %s", r.Workload, r.Impl, r.Error))
		}
	}
	return bad
}

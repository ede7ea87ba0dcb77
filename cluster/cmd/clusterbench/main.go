// Command clusterbench measures the cluster package's distributed work stealing
// against the central queue a user would otherwise build with JetStream,
// on loopback with one embedded NATS server, and calibrates the sim
// package's simulator from the figures.
//
// Designs, each with W workers of one slot (W jobs at once):
//
//	steal       cluster workers, steal half (cluster.StealHalf)
//	steal-mem   cluster workers, steal half, spawned jobs kept in memory and
//	            lent to thieves (cluster.WithSpawnRecords(false))
//	steal-one   cluster workers, steal one job (cluster.StealOne)
//	no-steal    cluster workers with cluster.WithStealMode(cluster.StealOff)
//	central-f1  one JetStream work-queue stream, one durable pull consumer
//	            shared by all workers; Fetch(1), run, Ack
//	central-fK  the same with Fetch(K) (K = 16; 4 with -quick)
//
// Every trial starts a fresh embedded server (memory storage) and its own
// workers in this process; the recovery trials start a worker process
// (this program again) and kill it with SIGKILL. For each workload and W,
// each run runs every design once, in turn, so that noise on a shared
// machine hits all of them; tables show medians.
//
// With -procs, each trial of the sweep runs again straight after, with
// every worker in a process of its own (this program again, on its own
// TCP connection), killed with SIGKILL when the trial ends; the tables
// then show both, and how much faster the processes were. The clock and
// the completions counted are the same (see procs.go).
//
// Usage:
//
//	go run ./cmd/clusterbench [-quick] [-procs] [-runs N] [-only W1,W2] [-json FILE] [-md FILE] [-chart FILE]
//
// -md FILE writes the markdown tables; when FILE already holds the lines
// "<!-- clusterbench:begin -->" and "<!-- clusterbench:end -->", only the text
// between them is replaced. -chart FILE writes the input of
// `charts scaling` (bench/cmd/charts). With no output flag the tables go
// to standard output. Progress goes to standard error. -only runs just the
// sweep of the named workloads (for example tree-noop,tree-1ms) and prints
// one line per design and W.
//
// # The comparison
//
//	go run ./cmd/clusterbench -compare [-quick] [-big] [-runs N] [-only W1,W2] [-designs D1,D2]
//	    [-modes processes|in-process|both] [-workers W1,W2] [-scale-workers W1,W2|none]
//	    [-scale-procs W] [-scale-runs N] [-scale-designs D1,D2]
//	    [-idle-window D] [-json FILE] [-md FILE] [-chart FILE]
//	go run ./cmd/clusterbench -compare -from FILE [-md FILE] [-chart FILE]
//
// -compare asks where distributed stealing should beat a central queue
// (see compare.go): spawn-heavy trees (tree-spawn, no-op jobs; tree-spawn-20us,
// jobs spinning 20 µs; four roots of 1023 jobs each, 32,767 with -big),
// fanout-sleep (one root spawning 1000 jobs that sleep 1 ms), uneven-roots
// (eight roots of 1 to 1023 sleeping jobs), flat-noop and flat-sleep (one
// Submit or Publish per job), flat-noop-batch and flat-sleep-batch (the
// same jobs in calls of 100: one Client.SubmitBatch each, dealt round the
// workers in one atomic batch, or SubmitBundle for steal-bundle; a central
// queue publishes a call's jobs with PublishAsync and awaits every ack) and skew-sleep (every job
// on one worker before the clock starts). Besides the
// designs above it runs
//
//	central-async  central-f16 whose workers publish a job's children with
//	               PublishAsync and await every ack before the job's Ack
//	central-local  Fetch(1); a fetched job's whole subtree runs in the
//	               worker's own steal.Pool of one worker, nothing published
//
// by default W = 16 worker processes; each cell gives jobs/s, server
// messages per job, CPU time per job of every process of the trial, the
// makespan over its lower bound, and the ratios against central-f16 of the
// same run. It then measures idle workers' traffic and 1 ms sleeping jobs
// at W = 16, 64, 256 (in-process; -scale-procs W adds processes up to W),
// and calibrates the simulator from the run up to 1000 workers. -md
// writes between the lines "<!-- clusterbench-compare:begin -->" and
// "<!-- clusterbench-compare:end -->"; -chart writes the chart's input,
// which pngchart (a module of its own, in pngchart/) draws as PNG.
// compare.sh runs both and regenerates the files docs/cluster.md publishes.
// -from FILE writes the tables and chart of an earlier -compare -json FILE
// without running anything.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

func main() {
	if os.Getenv(roleEnv) != "" {
		os.Exit(childMain()) // a worker process of the recovery benchmark
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the benchmark and returns the exit status: 2 for bad flags,
// 1 when a trial fails.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clusterbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "a smoke run of every part, in seconds")
	runs := fs.Int("runs", 0, "runs per design (default 5, 1 with -quick)")
	jsonOut := fs.String("json", "", "write the results as JSON to this file")
	mdOut := fs.String("md", "", "write the markdown tables to this file")
	chartOut := fs.String("chart", "", "write the scaling chart's input to this file")
	only := fs.String("only", "", "comma-separated workload names: run only their sweep, one line per cell")
	procs := fs.Bool("procs", false, "run every sweep trial also with one process per worker, interleaved")
	cpuProfile := fs.String("cpuprofile", "", "write this process's CPU profile to this file (in-process workers and the server included)")
	mutexProfile := fs.String("mutexprofile", "", "write this process's mutex contention profile to this file (every contended lock, the server's included)")
	fs.IntVar(&workerGOMAXPROCS, "worker-gomaxprocs", 0, "GOMAXPROCS of every design's worker processes (0: this process's environment decides, as for any Go program)")
	var cf cmpFlags
	cf.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *runs < 0 || workerGOMAXPROCS < 0 {
		fmt.Fprintln(stderr, "clusterbench: unexpected arguments; see go doc ./cmd/clusterbench")
		return 2
	}
	if err := unusedFlags(fs, cf); err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 2
	}
	for _, p := range []struct {
		path  string
		start func(string) (func(), error)
	}{{*cpuProfile, startProfile}, {*mutexProfile, startMutexProfile}} {
		if p.path == "" {
			continue
		}
		stop, err := p.start(p.path)
		if err != nil {
			fmt.Fprintln(stderr, "clusterbench:", err)
			return 1
		}
		defer stop()
	}
	if cf.compare && cf.from != "" {
		return renderCompare(cf.from, *jsonOut, *mdOut, *chartOut, stdout, stderr)
	}
	if cf.compare {
		cfg, err := cf.config(*quick, *runs, *only)
		if err != nil {
			fmt.Fprintln(stderr, "clusterbench:", err)
			return 2
		}
		return runCompare(cfg, args, *jsonOut, *mdOut, *chartOut, stdout, stderr)
	}
	cfg := fullConfig()
	if *quick {
		cfg = quickConfig()
	}
	if *runs > 0 {
		cfg.Runs, cfg.RecoveryRuns = *runs, *runs
	}
	cfg.Procs = *procs
	if *only != "" {
		return sweepOnly(cfg, strings.Split(*only, ","), stdout, stderr)
	}
	r, err := measure(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	r.Command = strings.Join(append([]string{"go run ./cmd/clusterbench"}, args...), " ")
	if err := write(r, *jsonOut, *mdOut, *chartOut, stdout); err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	return 0
}

// Flags that the chosen mode does not read: refused, so that a command
// line (the one a published table names) says what was measured.
var (
	// cmpOnly: read by -compare alone.
	cmpOnly = []string{"big", "designs", "modes", "workers", "scale-workers", "scale-procs", "scale-designs", "idle-window", "scale-runs", "from"}
	// measuring: read by a run that measures, not by -compare -from,
	// which only renders an earlier run's JSON.
	measuring = []string{"quick", "runs", "only", "procs", "big", "designs", "modes", "workers", "scale-workers", "scale-procs", "scale-designs", "idle-window", "scale-runs", "worker-gomaxprocs"}
)

// unusedFlags reports a flag set on the command line that the mode it
// chose would ignore.
func unusedFlags(fs *flag.FlagSet, cf cmpFlags) error {
	var set []string
	fs.Visit(func(f *flag.Flag) { set = append(set, f.Name) })
	for _, n := range set {
		switch {
		case !cf.compare && slices.Contains(cmpOnly, n):
			return fmt.Errorf("-%s needs -compare", n)
		case cf.compare && cf.from != "" && slices.Contains(measuring, n):
			return fmt.Errorf("-%s: -compare -from measures nothing", n)
		case cf.compare && n == "procs":
			return fmt.Errorf("-procs is the sweep's; -compare has -modes")
		}
	}
	return nil
}

// startProfile starts a CPU profile written to path; stop ends it.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// startMutexProfile records every contended lock from now on, and writes
// the profile to path when stop is called.
func startMutexProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	runtime.SetMutexProfileFraction(1)
	return func() {
		pprof.Lookup("mutex").WriteTo(f, 0)
		runtime.SetMutexProfileFraction(0)
		f.Close()
	}, nil
}

// sweepOnly runs the sweep of the named workloads and prints each cell:
// median time, jobs/s and server messages per job.
func sweepOnly(cfg config, names []string, stdout, stderr io.Writer) int {
	var wls []workload
	for _, wl := range cfg.Workloads {
		for _, n := range names {
			if wl.Name == n {
				wls = append(wls, wl)
			}
		}
	}
	if len(wls) != len(names) {
		fmt.Fprintln(stderr, "clusterbench: -only names a workload the config does not have")
		return 2
	}
	cfg.Workloads = wls
	cells, err := sweep(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	for _, c := range cells {
		fmt.Fprintf(stdout, "%-10s W=%-2d %-11s %8.1f ms %9.0f jobs/s %6.1f msgs/job\n",
			c.Workload, c.W, c.Design, c.MedianMS, c.JobsPerS, c.MsgsPerJob)
	}
	return 0
}

// measure runs every part of cfg.
func measure(cfg config, log io.Writer) (*report, error) {
	r := &report{Date: time.Now().UTC().Format("2006-01-02"), Machine: machine(), Go: runtime.Version(), Config: cfg}
	var err error
	if r.Cells, err = sweep(cfg, log); err != nil {
		return nil, err
	}
	if r.Latency, err = latencies(cfg, log); err != nil {
		return nil, err
	}
	if r.Probe, err = probeSteals(cfg.Probe, cfg.Runs, log); err != nil {
		return nil, err
	}
	if r.Recovery, err = recoveries(cfg, log); err != nil {
		return nil, err
	}
	if r.Calibration, err = calibrate(cfg, r.Cells, r.Latency); err != nil {
		return nil, err
	}
	r.Sim = simulate(cfg, r.Calibration)
	return r, nil
}

func write(r *report, jsonOut, mdOut, chartOut string, stdout io.Writer) error {
	var md bytes.Buffer
	markdown(&md, r)
	if jsonOut == "" && mdOut == "" && chartOut == "" {
		_, err := stdout.Write(md.Bytes())
		return err
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, r); err != nil {
			return err
		}
	}
	if chartOut != "" {
		if err := writeJSON(chartOut, chart(r)); err != nil {
			return err
		}
	}
	if mdOut != "" {
		return writeMarkdown(mdOut, md.Bytes())
	}
	return nil
}

func writeJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

const (
	beginMark = "<!-- clusterbench:begin -->\n"
	endMark   = "<!-- clusterbench:end -->"
)

// writeMarkdown writes md to name, between the markers if name has them.
func writeMarkdown(name string, md []byte) error {
	return writeBetween(name, md, beginMark, endMark)
}

// writeBetween writes md to name, between the lines begin and end if name
// has them; it refuses a file with the begin line and no end line after it.
func writeBetween(name string, md []byte, beginMark, endMark string) error {
	old, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return os.WriteFile(name, md, 0o644)
	}
	if err != nil {
		return err
	}
	i := bytes.Index(old, []byte(beginMark))
	if i < 0 {
		return os.WriteFile(name, md, 0o644)
	}
	// The end line is looked for after the begin line; a file with a
	// begin line and none after it is refused: replacing the whole file
	// would throw away the rest of the page (docs/cluster.md).
	j := bytes.Index(old[i+len(beginMark):], []byte(endMark))
	if j < 0 {
		return fmt.Errorf("%s has the line %q but no %q after it: not overwritten", name, strings.TrimSpace(beginMark), endMark)
	}
	j += i + len(beginMark)
	out := append(append(append([]byte{}, old[:i+len(beginMark)]...), md...), old[j:]...)
	return os.WriteFile(name, out, 0o644)
}

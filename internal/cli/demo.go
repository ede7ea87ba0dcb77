package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/worksteal/steal"
	"github.com/worksteal/steal/schedcheck"
)

// demoFlags are steal demo's flags. The defaults are an imbalanced
// workload: 1000 tasks each summing 1,000,000 ints, all spawned on one worker.
type demoFlags struct {
	workers, tasks, size int
	every                time.Duration
	trace, spawn         string
	schedCheck           bool
}

// The demo's bounds. A pool's start costs time in its workers squared on
// a small machine (10,000 workers took minutes on two cores before the
// first task), and with -spawn flat every task is queued at once, about
// 65 bytes each: 10 million tasks take 650 MB. Schedtrace lines count
// time in milliseconds, and a shorter -every printed the same line as fast
// as the clock ticks, megabytes a second.
const (
	maxDemoWorkers = 1024
	maxDemoTasks   = 10_000_000
	minDemoEvery   = time.Millisecond
)

// check returns what is wrong with the flags, naming the flag, the value
// and what is allowed, or "" when nothing is.
func (f *demoFlags) check() string {
	switch {
	case f.workers < 1 || f.workers > maxDemoWorkers:
		return fmt.Sprintf("-workers must be in [1, %d], not %d", maxDemoWorkers, f.workers)
	case f.tasks < 1 || f.tasks > maxDemoTasks:
		return fmt.Sprintf("-tasks must be in [1, %d], not %d", maxDemoTasks, f.tasks)
	case f.size < 0:
		return fmt.Sprintf("-size must not be negative, not %d", f.size)
	case f.every < minDemoEvery:
		return fmt.Sprintf("-every must be at least %v, not %v", minDemoEvery, f.every)
	case f.spawn != "tree" && f.spawn != "flat":
		return fmt.Sprintf("-spawn must be tree or flat, not %q", f.spawn)
	}
	return ""
}

func (f *demoFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "workers", min(runtime.GOMAXPROCS(0), maxDemoWorkers), fmt.Sprintf("workers in the parallel run, at most %d", maxDemoWorkers))
	fs.IntVar(&f.tasks, "tasks", 1000, fmt.Sprintf("tasks, all spawned by one task on one worker, at most %d", maxDemoTasks))
	fs.IntVar(&f.size, "size", 1_000_000, "numbers each task sums")
	fs.DurationVar(&f.every, "every", 100*time.Millisecond, fmt.Sprintf("schedtrace interval, at least %v", minDemoEvery))
	fs.StringVar(&f.trace, "trace", "", "write a Chrome/Perfetto timeline of the parallel run to this file\n"+
		"(bench/cmd/charts draws it as an SVG)")
	fs.BoolVar(&f.schedCheck, "check", false, "watch the Go scheduler while the demo runs (package schedcheck: pinned threads, GOMAXPROCS\n"+
		"against the CPUs and the container's quota, goroutine growth, latency tail) and print what it saw at the end")
	fs.StringVar(&f.spawn, "spawn", "tree", "how the one task creates the work: tree (it spawns two halves, each halving again: every other worker must steal) or flat (it spawns every task in a loop: past the ring's 256 slots they overflow to the inject queue)")
}

// runDemo runs the imbalanced workload on one worker, then on all, printing
// schedtrace lines while it runs and a summary after.
func runDemo(args []string, w, stderr io.Writer) int {
	var f demoFlags
	fs := flag.NewFlagSet(Program+" demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	if code := Parse(fs, args, stderr); code >= 0 {
		return code
	}
	if msg := f.check(); msg != "" {
		fmt.Fprintln(stderr, Program+" demo:", msg)
		return 2
	}
	// Open the -trace file before running, so that a path that cannot be
	// written is found before the runs, not after them.
	var trace *traceFile
	if f.trace != "" {
		var err error
		if trace, err = openTrace(f.trace); err != nil {
			fmt.Fprintln(stderr, Program+" demo: -trace:", err)
			return 2
		}
		defer trace.abandon()
	}
	// SIGINT or SIGTERM stops the runs: the tasks not yet done return at
	// once, and the demo says why it stopped and removes a -trace file it
	// created (below), rather than die with an empty one left behind.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	stdout := NewOutput(w) // output that cannot be written is a failure: wrote reports it
	wrote := func() bool {
		if err := stdout.Err(); err != nil {
			fmt.Fprintln(stderr, Program+" demo: writing the output:", err)
			return false
		}
		return true
	}
	// With -check, a schedcheck Monitor samples the Go scheduler under the
	// pool's workers; stopping it also ends its goroutine on the error
	// paths. Off by default: the demo is about the pool's stealing, and
	// its output stays as the docs show it.
	var check *schedcheck.Monitor
	if f.schedCheck {
		check = schedcheck.Start(context.Background(), schedcheck.WithInterval(demoCheckEvery))
		defer check.Stop()
	}
	fmt.Fprintf(stdout, Program+" demo: %d tasks, each summing %d ints, all created on one worker (-spawn %s)\n\n",
		f.tasks, f.size, f.spawn)
	one, _, err := demoRun(ctx, stdout, f, 1, nil)
	if err != nil {
		fmt.Fprintln(stderr, Program+" demo:", err)
		return 1
	}
	if !wrote() {
		return 1
	}
	all, stats, err := demoRun(ctx, stdout, f, f.workers, trace)
	if err != nil {
		fmt.Fprintln(stderr, Program+" demo:", err)
		return 1
	}
	demoSummary(stdout, f, one, all, stats)
	if check != nil {
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, check.Stop())
	}
	if !wrote() {
		return 1
	}
	return 0
}

// demoCheckEvery is -check's sampling interval: the demo's runs take a
// second or two, and a window of five samples should fit in them.
const demoCheckEvery = 100 * time.Millisecond

// demoRun runs the workload on a fresh pool of the given size and returns
// the wall time and the pool's final stats; with trace not nil, it records
// the run's timeline and writes it there. Once ctx is done, the tasks
// still to run return at once, and so does demoRun, with ctx's cause.
func demoRun(ctx context.Context, out io.Writer, f demoFlags, workers int, trace *traceFile) (time.Duration, steal.Stats, error) {
	fmt.Fprintf(out, "-- %d worker(s)\n", workers)
	opts := []steal.Option{steal.WithWorkers(workers), steal.WithSchedTrace(f.every, out)}
	if trace != nil {
		opts = append(opts, steal.WithTimeline(1<<20))
	}
	p := steal.New(opts...)
	var sink atomic.Int64
	var stopped atomic.Bool // ctx is done: a flag, as every task reads it
	defer context.AfterFunc(ctx, func() { stopped.Store(true) })()
	start := time.Now()
	work := func(*steal.Worker) { sink.Add(sumTo(f.size, &stopped)) }
	err := p.Run(func(w *steal.Worker) {
		if f.spawn == "flat" {
			for range f.tasks {
				if stopped.Load() {
					return
				}
				w.Spawn(work)
			}
			return
		}
		spawnTree(w, f.tasks, work, &stopped)
	})
	if err == nil {
		err = p.Close() // waits for every spawned task
	}
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return 0, steal.Stats{}, context.Cause(ctx)
	}
	if err != nil {
		return 0, steal.Stats{}, err
	}
	if want := int64(f.tasks) * sumTo(f.size, new(atomic.Bool)); sink.Load() != want {
		return 0, steal.Stats{}, fmt.Errorf("wrong result: %d, want %d", sink.Load(), want)
	}
	fmt.Fprintln(out, p.SchedTrace(elapsed))
	fmt.Fprintln(out)
	if trace != nil {
		if err := writeTrace(out, trace, p, f, workers); err != nil {
			return 0, steal.Stats{}, err
		}
	}
	return elapsed, p.Stats(), nil
}

// spawnTree creates n tasks by halving: a range of one runs the work,
// a larger range spawns its two halves. Everything starts on one worker, and
// the others get work only by stealing it. Once stopped is set, it spawns
// nothing more.
func spawnTree(w *steal.Worker, n int, work func(*steal.Worker), stopped *atomic.Bool) {
	if stopped.Load() {
		return
	}
	if n == 1 {
		work(w)
		return
	}
	w.Spawn(func(w *steal.Worker) { spawnTree(w, n/2, work, stopped) })
	w.Spawn(func(w *steal.Worker) { spawnTree(w, n-n/2, work, stopped) })
}

// sumTo is each task's work: the sum of 0..n-1, computed the slow way. It
// looks at stopped every 2^20 numbers, so that a large -size still stops
// within a millisecond or so, and then returns what it has summed.
func sumTo(n int, stopped *atomic.Bool) int64 {
	const chunk = 1 << 20
	var sum int64
	for lo := 0; lo < n && (lo == 0 || !stopped.Load()); {
		hi := lo + min(chunk, n-lo) // n-lo: lo+chunk may overflow
		for i := lo; i < hi; i++ {  // as tight a loop as without the look
			sum += int64(i)
		}
		lo = hi
	}
	return sum
}

func demoSummary(out io.Writer, f demoFlags, one, all time.Duration, s steal.Stats) {
	many := fmt.Sprintf("%d workers:", f.workers)
	if f.workers == 1 {
		many = "1 worker:  "
	}
	fmt.Fprintf(out, "summary\n  1 worker:   %v\n  %s %v\n", one.Round(time.Millisecond), many, all.Round(time.Millisecond))
	speedup := one.Seconds() / all.Seconds()
	fmt.Fprintf(out, "  speedup %.2fx, parallel efficiency %.2f (on %d CPUs)\n", speedup, speedup/float64(f.workers), runtime.NumCPU())
	if speedup > 1.05*float64(f.workers) {
		// One run each, so noise shows: more than linear means the machine
		// was busier while the one worker ran.
		fmt.Fprintln(out, "  (more than linear: other work on this machine slowed the 1-worker run; run it again)")
	}
	fmt.Fprintf(out, "  steals %d, tasks moved by stealing %d\n", s.Total.Steals, s.Total.StolenIn)
	for i, w := range s.Workers {
		fmt.Fprintf(out, "  worker %d ran %d tasks (stole %d)\n", i, w.Ran, w.StolenIn)
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/worksteal/steal/bench/internal/stats"
)

// Result is one (workload, impl) measurement: one JSON line with -json.
type Result struct {
	Workload     string  `json:"workload"`
	Impl         string  `json:"impl"`
	Param        int     `json:"param"`
	Workers      int     `json:"workers"`
	Runs         int     `json:"runs"`
	MedianNs     int64   `json:"median_ns"`
	MinNs        int64   `json:"min_ns"`
	MaxNs        int64   `json:"max_ns"`
	OK           bool    `json:"ok"`
	Error        string  `json:"error"`
	Tasks        int64   `json:"tasks"`
	AllocsPerOp  float64 `json:"allocs_per_op"`
	BytesPerOp   float64 `json:"bytes_per_op"`
	CPUNsPerS    float64 `json:"cpu_ns_per_s,omitempty"`   // idle only
	BytesPerTask float64 `json:"bytes_per_task,omitempty"` // memory only
}

// Run is what an implementation gets for one measured run. The harness
// times the whole call; an implementation that sets up a pool first calls
// Start after the setup and Stop before the teardown, so that only the work
// is timed (like testing.B's ResetTimer and StopTimer).
type Run struct {
	Param   int
	Workers int
	Ints    []int // per-run input (sort), filled by the workload's Setup

	t0      time.Time
	elapsed time.Duration
	stopped bool
	ms0     runtime.MemStats
	allocs  uint64
	bytes   uint64

	// Extra figures a workload reports, median over runs.
	CPUNsPerS    float64
	BytesPerTask float64
}

// Start (re)starts the timer and the allocation counters.
func (r *Run) Start() {
	r.stopped = false
	runtime.ReadMemStats(&r.ms0)
	r.t0 = time.Now()
}

// Stop stops the timer; the harness calls it if the implementation did not.
func (r *Run) Stop() {
	if r.stopped {
		return
	}
	r.elapsed = time.Since(r.t0)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.allocs = ms.Mallocs - r.ms0.Mallocs
	r.bytes = ms.TotalAlloc - r.ms0.TotalAlloc
	r.stopped = true
}

// errTimeout is what a run that did not finish within the timeout reports.
var errTimeout = errors.New("timeout")

// runOnce runs fn in its own goroutine and waits at most timeout for it. On
// a timeout the goroutine is abandoned (the child process exits soon after,
// which is what reclaims it).
func runOnce(r *Run, timeout time.Duration, fn func(r *Run) (int64, error)) (got int64, err error) {
	type outcome struct {
		got int64
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- outcome{err: fmt.Errorf("panic: %v", v)}
			}
		}()
		r.Start()
		g, e := fn(r)
		r.Stop()
		done <- outcome{g, e}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case o := <-done:
		return o.got, o.err
	case <-t.C:
		return 0, errTimeout
	}
}

// Spec says what a child process (or an in-process measurement) runs.
type Spec struct {
	Workload string        `json:"workload"`
	Impl     string        `json:"impl"`
	Param    int           `json:"param"`
	Runs     int           `json:"runs"`
	Timeout  time.Duration `json:"timeout"`
	// Warmup is the number of untimed runs first; 0 means one.
	Warmup int `json:"warmup,omitempty"`
}

// measure runs spec.Warmup warm-ups (at least one) and spec.Runs measured
// runs of one (workload, impl) in this process, checking every result, and
// stops at the first failure.
func measure(spec Spec) Result {
	res := Result{Workload: spec.Workload, Impl: spec.Impl, Param: spec.Param,
		Workers: runtime.GOMAXPROCS(0), Runs: spec.Runs}
	wl := lookupWorkload(spec.Workload)
	if wl == nil {
		res.Error = "unknown workload"
		return res
	}
	fn := wl.impl(spec.Impl)
	if fn == nil {
		res.Error = "unsupported"
		return res
	}
	res.Tasks = wl.Tasks(spec.Param)
	var runs []Result
	warmup := max(spec.Warmup, 1)
	for i := 0; i < warmup+spec.Runs; i++ {
		r := &Run{Param: spec.Param, Workers: runtime.GOMAXPROCS(0)}
		if wl.Setup != nil {
			wl.Setup(r)
		}
		runtime.GC()
		got, err := runOnce(r, spec.Timeout, fn)
		if err == nil {
			err = wl.check(r, got)
		}
		if err != nil {
			res.Error = err.Error()
			return res
		}
		if i < warmup {
			continue
		}
		one := res
		one.OK, one.Runs = true, 1
		one.MedianNs = r.elapsed.Nanoseconds()
		one.MinNs, one.MaxNs = one.MedianNs, one.MedianNs
		one.AllocsPerOp, one.BytesPerOp = float64(r.allocs), float64(r.bytes)
		one.CPUNsPerS, one.BytesPerTask = r.CPUNsPerS, r.BytesPerTask
		runs = append(runs, one)
	}
	return combine(runs)
}

// combine makes one Result of single-run results, of one process's runs
// (measure) or of the rounds' processes (interleave): the median, min and
// max of their times, the mean of their allocations, and the median of
// the workload's own figures (idle's CPU, memory's bytes per task; zero
// for the others).
func combine(rs []Result) Result {
	c := rs[0]
	c.Runs = len(rs)
	var times []int64
	var cpus, perTask []float64
	c.AllocsPerOp, c.BytesPerOp = 0, 0
	for _, r := range rs {
		times = append(times, r.MedianNs)
		cpus = append(cpus, r.CPUNsPerS)
		perTask = append(perTask, r.BytesPerTask)
		c.AllocsPerOp += r.AllocsPerOp / float64(len(rs))
		c.BytesPerOp += r.BytesPerOp / float64(len(rs))
	}
	c.MedianNs, c.MinNs, c.MaxNs = stats.Median(times), slices.Min(times), slices.Max(times)
	c.CPUNsPerS, c.BytesPerTask = stats.Median(cpus), stats.Median(perTask)
	return c
}

// childEnv names the environment variable that makes the binary a child:
// it holds a Spec as JSON; the child prints one Result as JSON and exits.
const childEnv = "STEALBENCH_CHILD"

// childMain runs the measurement a parent asked for, prints the result and
// exits, abandoning whatever a timed-out run left behind.
func childMain(specJSON string) {
	var spec Spec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "bad child spec:", err)
		os.Exit(2)
	}
	res := measure(spec)
	b, _ := json.Marshal(res)
	os.Stdout.Write(append(b, '\n'))
	os.Exit(0)
}

// runChild measures spec in a fresh process (this binary re-executed), so
// that a deadlocked run is killed with its process and no pool's leftovers
// (goroutines, heap, GC debt) affect the next measurement. The parent kills
// a child that outlives every run's timeout plus a grace period.
func runChild(spec Spec) Result {
	res := Result{Workload: spec.Workload, Impl: spec.Impl, Param: spec.Param,
		Workers: runtime.GOMAXPROCS(0), Runs: spec.Runs}
	exe, err := os.Executable()
	if err != nil {
		res.Error = "child: " + err.Error()
		return res
	}
	sj, _ := json.Marshal(spec)
	limit := time.Duration(spec.Runs+max(spec.Warmup, 1))*spec.Timeout + 30*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"="+string(sj))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		res.Error = "timeout"
		return res
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 && line[0] == '{' {
			var r Result
			if json.Unmarshal(line, &r) == nil && r.Workload == spec.Workload {
				return r
			}
		}
	}
	msg := strings.TrimSpace(stderr.String())
	if len(msg) > 300 {
		msg = msg[:300]
	}
	if err == nil {
		err = errors.New("no result")
	}
	res.Error = fmt.Sprintf("child: %v: %s", err, msg)
	return res
}

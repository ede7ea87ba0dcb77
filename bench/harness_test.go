package main

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary a harness child when asked, so runChild
// can be tested end to end.
func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		childMain(spec)
	}
	os.Exit(m.Run())
}

// Test-only workloads: one that computes a wrong answer, one that hangs,
// one that panics.
func init() {
	workloads = append(workloads, &Workload{
		Name: "test-faults", Default: 1, Tiny: 1, Timeout: time.Second,
		Tasks: func(int) int64 { return 1 },
		Want:  func(int) int64 { return 42 },
		Impls: []Impl{
			{"steal", func(*Run) (int64, error) { return 41, nil }},
			{"goroutines", func(*Run) (int64, error) { select {} }},
			{"ants", func(*Run) (int64, error) { panic("boom") }},
			{"sequential", func(r *Run) (int64, error) { return 42, nil }},
		},
	})
}

func TestRunOnceTimeout(t *testing.T) {
	start := time.Now()
	_, err := runOnce(&Run{}, 50*time.Millisecond, func(*Run) (int64, error) { select {} })
	if !errors.Is(err, errTimeout) {
		t.Fatalf("err = %v, want timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("timeout took %v", d)
	}
}

func TestRunOncePanicAndTiming(t *testing.T) {
	_, err := runOnce(&Run{}, time.Second, func(*Run) (int64, error) { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "panic: boom") {
		t.Fatalf("err = %v, want the panic", err)
	}
	r := &Run{}
	got, err := runOnce(r, time.Second, func(r *Run) (int64, error) {
		time.Sleep(30 * time.Millisecond) // setup, not timed
		r.Start()
		time.Sleep(10 * time.Millisecond)
		r.Stop()
		time.Sleep(30 * time.Millisecond) // teardown, not timed
		return 5, nil
	})
	if err != nil || got != 5 {
		t.Fatalf("got %d, %v", got, err)
	}
	if r.elapsed < 10*time.Millisecond || r.elapsed >= 40*time.Millisecond {
		t.Errorf("elapsed %v: Start/Stop did not bound the timed part", r.elapsed)
	}
}

func TestMeasureChecksResults(t *testing.T) {
	spec := Spec{Workload: "test-faults", Param: 1, Runs: 2, Timeout: 200 * time.Millisecond}
	for impl, want := range map[string]string{
		"steal":      "wrong result: got 41, want 42",
		"goroutines": "timeout",
		"ants":       "panic: boom",
		"sequential": "",
		"pond":       "unsupported",
	} {
		spec.Impl = impl
		r := measure(spec)
		if r.Error != want || r.OK != (want == "") {
			t.Errorf("%s: ok=%v error=%q, want error %q", impl, r.OK, r.Error, want)
		}
	}
}

func TestResultJSONShape(t *testing.T) {
	for _, c := range []struct {
		r     Result
		extra string
	}{
		{Result{Workload: "fib", Impl: "steal", OK: true}, ""},
		{Result{Workload: "idle", Impl: "steal", CPUNsPerS: 1e5}, "cpu_ns_per_s"},
		{Result{Workload: "memory", Impl: "steal", BytesPerTask: 64}, "bytes_per_task"},
	} {
		b, _ := json.Marshal(c.r)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"workload", "impl", "param", "runs", "median_ns", "min_ns", "max_ns",
			"ok", "error", "tasks", "allocs_per_op", "bytes_per_op"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no %q in %s", c.r.Workload, k, b)
			}
		}
		for _, k := range []string{"cpu_ns_per_s", "bytes_per_task"} {
			if _, ok := m[k]; ok != (k == c.extra) {
				t.Errorf("%s: %q present=%v in %s", c.r.Workload, k, ok, b)
			}
		}
	}
}

// TestChildProcess runs the harness end to end: a child that hangs is
// reported as a timeout and does not hang the parent; a deadlocking peer on
// nested times out; steal on nested completes.
func TestChildProcess(t *testing.T) {
	cases := []struct {
		spec Spec
		err  string
	}{
		{Spec{Workload: "test-faults", Impl: "goroutines", Param: 1, Runs: 1, Timeout: 300 * time.Millisecond}, "timeout"},
		{Spec{Workload: "test-faults", Impl: "steal", Param: 1, Runs: 1, Timeout: time.Second}, "wrong result: got 41, want 42"},
		{Spec{Workload: "nested", Impl: "ants", Param: 3, Runs: 1, Timeout: 300 * time.Millisecond}, "timeout"},
		{Spec{Workload: "nested", Impl: "steal", Param: 3, Runs: 2, Timeout: 10 * time.Second}, ""},
	}
	for _, c := range cases {
		start := time.Now()
		r := runChild(c.spec)
		if r.Error != c.err || r.OK != (c.err == "") {
			t.Errorf("%s/%s: ok=%v error=%q, want %q", c.spec.Workload, c.spec.Impl, r.OK, r.Error, c.err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s/%s took %v", c.spec.Workload, c.spec.Impl, d)
		}
		if c.err == "" && (r.Runs != 2 || r.MedianNs <= 0 || r.MinNs > r.MedianNs || r.MaxNs < r.MedianNs || r.Tasks != 84) {
			t.Errorf("nested/steal: %+v", r)
		}
	}
}

// TestEveryWorkloadTiny runs each workload at its tiny size in-process on
// the implementations that cannot deadlock, checking their results.
func TestEveryWorkloadTiny(t *testing.T) {
	for _, wl := range workloads {
		if strings.HasPrefix(wl.Name, "test-") {
			continue
		}
		for _, impl := range wl.implNames() {
			if slices.Contains(wl.Deadlocks, impl) {
				continue // deadlocks by design; TestChildProcess covers one
			}
			param := wl.Tiny
			if wl.Name == "idle" {
				param = 1
			}
			r := measure(Spec{Workload: wl.Name, Impl: impl, Param: param, Runs: 1, Timeout: 20 * time.Second})
			if !r.OK {
				t.Errorf("%s/%s: %s", wl.Name, impl, r.Error)
			}
		}
	}
}

func TestFailures(t *testing.T) {
	rs := []Result{
		{Workload: "nested", Impl: "ants", Error: "timeout"},
		{Workload: "nested", Impl: "steal", Error: "timeout"},
		{Workload: "fib", Impl: "conc", Error: "wrong result: got 1, want 2"},
		{Workload: "fib", Impl: "steal", OK: true},
	}
	bad := failures(rs)
	if len(bad) != 2 || !strings.HasPrefix(bad[0], "nested/steal") || !strings.HasPrefix(bad[1], "fib/conc") {
		t.Errorf("failures = %q", bad)
	}
	// Only nested's deadlocking peers may time out: a peer that times out
	// anywhere else (too slow, or hung by a fault) is a failure.
	bad = failures([]Result{{Workload: "fib", Impl: "goroutines", Error: "timeout"}})
	if len(bad) != 1 {
		t.Errorf("an unexpected timeout: failures = %q", bad)
	}
}

func TestPlan(t *testing.T) {
	specs, err := plan([]string{"nested", "memory"}, options{runs: 3, param: "tiny", impls: []string{"steal", "ants"}})
	if err != nil {
		t.Fatal(err)
	}
	// ants has no memory implementation: skipped, not an error.
	if len(specs) != 3 || specs[0].Impl != "steal" || specs[0].Param != 4 || specs[0].Timeout != 5*time.Second ||
		specs[2].Workload != "memory" || specs[2].Param != 10_000 {
		t.Errorf("plan = %+v", specs)
	}
	if _, err := plan([]string{"fib"}, options{runs: 1, impls: []string{"nope"}}); err == nil {
		t.Error("unknown impl accepted")
	}
	if _, err := plan([]string{"nope"}, options{runs: 1}); err == nil {
		t.Error("unknown workload accepted")
	}
	specs, _ = plan([]string{"fib"}, options{runs: 1, param: "1_000", timeout: time.Second})
	if specs[0].Param != 1000 || specs[0].Timeout != time.Second {
		t.Errorf("plan = %+v", specs[0])
	}
}

func TestVerdicts(t *testing.T) {
	rs := []Result{
		{Workload: "spawn", Impl: "steal", OK: true, MedianNs: 100e6},
		{Workload: "spawn", Impl: "goroutines", OK: true, MedianNs: 300e6},
		{Workload: "spawn", Impl: "channel", OK: true, MedianNs: 50e6},
		{Workload: "chained", Impl: "steal", OK: true, MedianNs: 10e6},
		{Workload: "chained", Impl: "goroutines", OK: true, MedianNs: 30e6},
		{Workload: "chained", Impl: "sequential", OK: true, MedianNs: 1e6},
	}
	losses, wins := verdicts(rs)
	if len(losses) != 2 || !strings.Contains(losses[0], "`channel` beat `steal` by 50%") ||
		!strings.Contains(losses[1], "`sequential` beat `steal` by 90%") {
		t.Errorf("losses = %q", losses)
	}
	if len(wins) != 2 || !strings.Contains(wins[1], "ahead of every other implementation") {
		t.Errorf("wins = %q", wins)
	}
	if tbl := markdownTable(rs); !strings.Contains(tbl, "**100 ms (0.33×)**") {
		t.Errorf("table:\n%s", tbl)
	}
}

// The document's list of deadlocks holds only the timeouts that are
// deadlocks by design; a peer timing out on fib is not one.
func TestMarkdownTimeoutsAreDeadlocks(t *testing.T) {
	md, err := renderMarkdown(Published{Runs: 1, Results: []Result{
		{Workload: "nested", Impl: "ants", Error: "timeout"},
		{Workload: "fib", Impl: "goroutines", Error: "timeout"},
		{Workload: "fib", Impl: "steal", OK: true, MedianNs: 1e6},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(md, "Timeouts (deadlocks):")
	line, _, _ = strings.Cut(line, "\n")
	if !strings.Contains(line, "`ants` on nested") || strings.Contains(line, "fib") {
		t.Errorf("deadlocks line: %q", line)
	}
}

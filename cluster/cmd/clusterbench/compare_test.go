package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCompare runs the comparison small, with the workers in-process and
// in processes: every design ran every workload to its last completion
// (a failed run shows in Failed), the idle and scaling cells and the
// models have figures, and the outputs name every design. It asserts
// nothing about speed.
// tinyWorkloads is one small workload of each kind: a tree, flat jobs one
// at a time and in batches, and a skewed start.
func tinyWorkloads() []workload {
	return []workload{
		{Name: "tree-spawn", Kind: kindTree, Fanout: 2, Roots: []int{2, 2}},
		{Name: "flat-noop", Kind: kindThroughput, Jobs: 10},
		{Name: "flat-noop-batch", Kind: kindThroughput, Jobs: 10, Bundle: 4},
		{Name: "skew-sleep", Kind: kindSkew, Job: ms1, Jobs: 10},
	}
}

func TestCompare(t *testing.T) {
	cfg := quickCmpConfig()
	cfg.Modes = []string{modeInProcess, modeProcesses}
	cfg.Workloads = tinyWorkloads()
	cfg.Scale.Workers = []int{2}
	var log bytes.Buffer
	r, err := measureCompare(cfg, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := 0 // a cell for each workload, design and mode; steal-bundle runs the batch workloads only
	for _, wl := range cfg.Workloads {
		for _, d := range cfg.Designs {
			if d != "steal-bundle" || wl.Bundle > 0 {
				want += 2
			}
		}
	}
	if len(r.Cells) != want {
		t.Errorf("%d results, want %d", len(r.Cells), want)
	}
	for _, c := range r.Cells {
		if c.Failed > 0 || len(c.RunsMS) != cfg.Runs || c.MedianMS <= 0 || c.CPUPerJobUS <= 0 {
			t.Errorf("%s %s %s: %d failed, runs %v, CPU %v µs/job\n%s", c.Workload, c.Design, c.Mode, c.Failed, c.RunsMS, c.CPUPerJobUS, log.String())
		}
	}
	for _, c := range r.Cells { // the split by process: with worker processes only
		split := c.SelfCPUUS > 0 && c.KidCPUUS > 0 && c.KidSlices > 0
		if split != (c.Mode == modeProcesses) || c.Mode == modeInProcess && c.SelfCPUUS+c.KidCPUUS+c.KidSlices != 0 {
			t.Errorf("%s %s %s: %v + %v µs/job, %v slices/job", c.Workload, c.Design, c.Mode, c.SelfCPUUS, c.KidCPUUS, c.KidSlices)
		}
	}
	if want := len(cfg.Scale.Designs); len(r.Idle) != want || len(r.ScaleCells) != want {
		t.Errorf("%d idle and %d scaling cells, want %d", len(r.Idle), len(r.ScaleCells), want)
	}
	if len(r.Sim) != len(r.Calibration)*len(cfg.SimWorkers) || len(r.Calibration) == 0 {
		t.Errorf("%d models, %d simulated points", len(r.Calibration), len(r.Sim))
	}
	dir := t.TempDir()
	md := filepath.Join(dir, "out.md")
	os.WriteFile(md, []byte("intro\n"+cmpBeginMark+"old\n"+cmpEndMark+"\noutro\n"), 0o644)
	if err := writeCompare(r, filepath.Join(dir, "r.json"), md, filepath.Join(dir, "c.json"), nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(md)
	s := string(b)
	if !strings.HasPrefix(s, "intro\n"+cmpBeginMark) || !strings.HasSuffix(s, cmpEndMark+"\noutro\n") || strings.Contains(s, "old\n") {
		t.Errorf("markdown did not replace exactly the text between the markers:\n%s", s)
	}
	for _, d := range cfg.Designs {
		if !strings.Contains(s, "| "+d+" |") {
			t.Errorf("markdown lacks design %s", d)
		}
	}
	if !strings.Contains(s, "| jobs stolen (of which before the clock) |") {
		t.Errorf("markdown does not say how many of a skewed start's steals came before its clock")
	}
	if !strings.Contains(s, "**Where the CPU goes**, W = 2, processes") {
		t.Errorf("markdown lacks the CPU split of the worker processes")
	}
	var again bytes.Buffer // -from: the same tables from the JSON alone
	if code := run([]string{"-compare", "-from", filepath.Join(dir, "r.json")}, &again, &log); code != 0 {
		t.Fatalf("-from: status %d\n%s", code, log.String())
	}
	if want := strings.TrimSuffix(strings.TrimPrefix(s, "intro\n"+cmpBeginMark), cmpEndMark+"\noutro\n"); again.String() != want {
		t.Errorf("-from wrote other tables than the run:\n%s\nwant:\n%s", again.String(), want)
	}
	var doc chartDoc
	if b, err := os.ReadFile(filepath.Join(dir, "c.json")); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Series) == 0 {
		t.Errorf("chart: %v, %d series", err, len(doc.Series))
	}
}

func TestCompareFlags(t *testing.T) {
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"-compare", "-designs", "nope"},
		{"-compare", "-designs", "steal"}, // no baseline
		{"-compare", "-modes", "elsewhere"},
		{"-compare", "-workers", "0"},
		{"-compare", "-only", "nope"},
	} {
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: status %d, want 2", args, code)
		}
	}
}

// TestPidCPU: a process's CPU time read from /proc grows while it spins
// (checked on this process, by its own pid, against getrusage's count).
func TestPidCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc here")
	}
	pid := os.Getpid()
	a, _ := pidSched(pid)
	r0 := selfCPU()
	for limit := time.Now().Add(10 * time.Second); selfCPU()-r0 < 20*time.Millisecond && time.Now().Before(limit); {
	}
	if b, _ := pidSched(pid); b <= a {
		t.Errorf("pidSched's CPU went from %v to %v while this process spun 20 ms of CPU", a, b)
	}
}

// TestPidSched: the count of a process's threads' times on a CPU grows
// as a thread sleeps and wakes (checked on this process, by its pid).
func TestPidSched(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc here")
	}
	_, a := pidSched(os.Getpid())
	for range 20 {
		time.Sleep(time.Millisecond)
	}
	if _, b := pidSched(os.Getpid()); b < a+20 {
		t.Errorf("times on a CPU went from %d to %d over 20 sleeps", a, b)
	}
}

// TestWorkerGOMAXPROCS: -worker-gomaxprocs reaches the worker processes'
// environment; without it they get none from us.
func TestWorkerGOMAXPROCS(t *testing.T) {
	defer func(n int) { workerGOMAXPROCS = n }(workerGOMAXPROCS)
	t.Setenv("GOMAXPROCS", "")
	for _, n := range []int{0, 1, 3} {
		workerGOMAXPROCS = n
		env := sweepEnv([]byte("{}"))
		want := ""
		if n > 0 {
			want = "GOMAXPROCS=" + strconv.Itoa(n)
		}
		if got := env[len(env)-1]; strings.HasPrefix(got, "GOMAXPROCS=") != (want != "") || want != "" && got != want {
			t.Errorf("-worker-gomaxprocs %d: the environment ends with %q", n, got)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-worker-gomaxprocs", "-1"}, &out, &errb); code != 2 {
		t.Errorf("-worker-gomaxprocs -1: status %d, want 2", code)
	}
}

// TestWriteBetweenMarkers: a file with the begin line but no end line
// after it (a half-edited docs page) is left alone, not overwritten with
// the tables alone.
func TestWriteBetweenMarkers(t *testing.T) {
	dir := t.TempDir()
	for _, old := range []string{
		"intro\n" + cmpBeginMark + "old tables\n",                // no end line
		cmpEndMark + "\nintro\n" + cmpBeginMark + "old tables\n", // end line only before begin
	} {
		name := filepath.Join(dir, "doc.md")
		if err := os.WriteFile(name, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := writeBetween(name, []byte("new\n"), cmpBeginMark, cmpEndMark); err == nil {
			t.Errorf("%q: no error", old)
		}
		if b, _ := os.ReadFile(name); string(b) != old {
			t.Errorf("%q: file became %q", old, b)
		}
	}
}

// TestCompareFlagsIgnored: a flag that the chosen mode would not use is
// refused, not silently dropped (-from renders, it does not measure).
func TestCompareFlagsIgnored(t *testing.T) {
	from := filepath.Join(t.TempDir(), "r.json")
	if err := writeJSON(from, &cmpReport{Config: quickCmpConfig()}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-compare", "-from", from}, &out, &errb); code != 0 {
		t.Fatalf("-compare -from: status %d: %s", code, errb.String())
	}
	for _, args := range [][]string{
		{"-compare", "-from", from, "-runs", "3"},
		{"-compare", "-from", from, "-quick"},
		{"-compare", "-from", from, "-designs", "steal,central-f4"},
		{"-compare", "-from", from, "-procs"},
		{"-from", from}, // without -compare: ran the whole sweep
		{"-big"},
		{"-compare", "-quick", "-procs"},
	} {
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: status %d, want 2", args, code)
		}
	}
}

// TestLedgerDesigns runs the designs that only -designs adds, steal-wq
// and steal-wq-streams (prototypes of the one-message layout), central-ledger (a central
// queue that records each completion) and central-pipelined (its acks
// pipelined), on every kind of workload, with workers in this process and
// in processes of their own.
func TestLedgerDesigns(t *testing.T) {
	cfg := quickCmpConfig()
	cfg.Designs = []string{"steal-wq", "steal-wq-streams", "central-ledger", "central-pipelined", cfg.baseline()}
	cfg.Modes = []string{modeInProcess, modeProcesses}
	cfg.Workloads = tinyWorkloads()
	cfg.Scale.Workers, cfg.Scale.Designs = []int{2}, cfg.Designs
	var log bytes.Buffer
	r, err := measureCompare(cfg, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if want := len(cfg.Workloads) * len(cfg.Designs) * 2; len(r.Cells) != want {
		t.Errorf("%d results, want %d", len(r.Cells), want)
	}
	for _, c := range r.Cells {
		if c.Failed > 0 || len(c.RunsMS) != cfg.Runs || c.MedianMS <= 0 {
			t.Errorf("%s %s %s: %d failed, runs %v\n%s", c.Workload, c.Design, c.Mode, c.Failed, c.RunsMS, log.String())
		}
	}
}

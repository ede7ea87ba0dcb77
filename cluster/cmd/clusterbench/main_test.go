package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) != "" {
		os.Exit(childMain()) // a worker process of the recovery trials
	}
	goleak.VerifyTestMain(m)
}

// tinyConfig runs every part of the harness at sizes that take seconds.
func tinyConfig() config {
	cfg := quickConfig()
	cfg.Workers = []int{2}
	cfg.SimWorkers = []int{2, 8}
	var wls []workload // one of each kind, and noop, which calibrates the simulator
	for _, wl := range cfg.Workloads {
		switch wl.Name {
		case "noop", "skew-1ms", "tree-1ms":
			wls = append(wls, wl)
		}
	}
	cfg.Workloads = wls
	return cfg
}

// TestHarness runs the whole harness small and checks that every part
// produced its figures: every design ran every workload to its last
// completion (runTrial fails otherwise), the recovery trials saw the
// killed worker's job completed, and the tables and chart name them all.
// It asserts nothing about speed.
func TestHarness(t *testing.T) {
	cfg := tinyConfig()
	var log bytes.Buffer
	r, err := measure(cfg, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ds := designs(cfg.FetchK)
	if want := len(cfg.Workloads) * len(ds); len(r.Cells) != want {
		t.Errorf("%d results, want %d", len(r.Cells), want)
	}
	for _, c := range r.Cells {
		if len(c.RunsMS) != cfg.Runs || c.MedianMS <= 0 || c.Jobs == 0 {
			t.Errorf("%s %s W=%d: runs %v, jobs %d", c.Workload, c.Design, c.W, c.RunsMS, c.Jobs)
		}
		if c.Design == "no-steal" && c.Stolen != 0 {
			t.Errorf("%s: no-steal stole %v jobs", c.Workload, c.Stolen)
		}
	}
	for _, x := range r.Recovery {
		if len(x.CompleteMS) != cfg.RecoveryRuns || x.MedComplete < x.MedTakeover || x.MedTakeover <= 0 {
			t.Errorf("recovery %s: takeover %v complete %v", x.Design, x.TakeoverMS, x.CompleteMS)
		}
	}
	if len(r.Latency) != 2*len(cfg.LatencyWorkers) {
		t.Errorf("%d latency rows, want %d", len(r.Latency), 2*len(cfg.LatencyWorkers))
	}
	for i, p := range r.Probe {
		if want := cfg.Probe[i]; p.Steals != want.Count*cfg.Runs || p.Moved != float64(want.Max) {
			t.Errorf("steal probe of %d jobs: %d steals moving %v jobs each, want %d moving %d",
				want.Max, p.Steals, p.Moved, want.Count*cfg.Runs, want.Max)
		}
	}
	if len(r.Sim) != 4*len(cfg.SimWorkers) {
		t.Errorf("%d simulated points, want %d", len(r.Sim), 4*len(cfg.SimWorkers))
	}
	dir := t.TempDir()
	md := filepath.Join(dir, "out.md")
	os.WriteFile(md, []byte("intro\n"+beginMark+"old\n"+endMark+"\noutro\n"), 0o644)
	if err := write(r, filepath.Join(dir, "r.json"), md, filepath.Join(dir, "c.json"), nil); err != nil {
		t.Fatal(err)
	}
	checkOutputs(t, dir, cfg)
}

// checkOutputs: the markdown kept the text around the markers and names
// every workload and design; both JSON files decode.
func checkOutputs(t *testing.T, dir string, cfg config) {
	b, _ := os.ReadFile(filepath.Join(dir, "out.md"))
	s := string(b)
	if !strings.HasPrefix(s, "intro\n"+beginMark) || !strings.HasSuffix(s, endMark+"\noutro\n") || strings.Contains(s, "old\n") {
		t.Errorf("markdown did not replace exactly the text between the markers:\n%s", s)
	}
	for _, wl := range cfg.Workloads {
		if !strings.Contains(s, "**"+wl.Name+"**") {
			t.Errorf("markdown lacks workload %s", wl.Name)
		}
	}
	for _, d := range designs(cfg.FetchK) {
		if !strings.Contains(s, "| "+d.Name+" |") {
			t.Errorf("markdown lacks design %s", d.Name)
		}
	}
	var rep report
	var doc chartDoc
	for name, v := range map[string]any{"r.json": &rep, "c.json": &doc} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || json.Unmarshal(b, v) != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(doc.Series) != 7 || len(rep.Cells) == 0 {
		t.Errorf("chart has %d series, report %d results", len(doc.Series), len(rep.Cells))
	}
}

func TestFlags(t *testing.T) {
	var out, errb bytes.Buffer
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-runs", "-1"}} {
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: status %d, want 2", args, code)
		}
	}
}

// TestProcs runs the sweep of -quick -procs at W = 2 on one workload of
// each kind: every design ran every workload to its last completion in
// both modes (runTrial fails otherwise), the tables have a row of each
// mode, and no worker process is left once the sweep has returned.
func TestProcs(t *testing.T) {
	cfg := tinyConfig()
	cfg.Procs = true
	var log bytes.Buffer
	cells, err := sweep(cfg, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if left := childPids(t); len(left) > 0 {
		t.Errorf("worker processes left after the sweep: %v", left)
	}
	ds := designs(cfg.FetchK)
	for _, wl := range cfg.Workloads {
		for _, d := range ds {
			for _, mode := range []string{modeInProcess, modeProcesses} {
				c := findIn(cells, mode, wl.Name, d.Name, 2)
				if c == nil || len(c.RunsMS) != cfg.Runs || c.MedianMS <= 0 {
					t.Errorf("%s %s %s: %+v", wl.Name, d.Name, mode, c)
				} else if d.Name == "no-steal" && c.Stolen != 0 {
					t.Errorf("%s %s: no-steal stole %v jobs", wl.Name, mode, c.Stolen)
				}
			}
		}
	}
	var md bytes.Buffer
	markdown(&md, &report{Config: cfg, Cells: cells})
	for _, want := range []string{"| 2 | in-process | ", "| 2 | processes | ", "**Processes against in-process workers**", "| skew-1ms | 2 | "} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// childPids lists this process's child processes (zombies included), from
// /proc; it skips the test where /proc has no such list.
func childPids(t *testing.T) []string {
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil || len(tasks) == 0 {
		t.Skip("no /proc/self/task/*/children here")
	}
	var pids []string
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Skipf("cannot read %s: %v", f, err)
		}
		pids = append(pids, strings.Fields(string(b))...)
	}
	return pids
}

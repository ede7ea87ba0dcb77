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

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimTable(t *testing.T) {
	code, out, errs := runWith([]string{"sim", "-workers", "4", "-jobs", "400", "-cost", "fixed", "-policies", "none,one/most_loaded"}, "")
	if code != 0 || errs != "" {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	for _, want := range []string{"400 jobs (fixed, mean 1ms, start: first) on 4 workers", "makespan/bound",
		"lower bound max(work/W, longest job) = 100ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 7 {
			rows[f[0]] = strings.Join(f[1:], " ")
		}
	}
	if got := rows["none"]; got != "400ms 4.000 25.0% 0 0 0" {
		t.Errorf("none row %q", got)
	}
	if got := rows["one/most_loaded"]; got != "100ms 1.000 100.0% 300 0 300" {
		t.Errorf("one/most_loaded row %q", got)
	}
}

func TestSimJSON(t *testing.T) {
	code, out, _ := runWith([]string{"sim", "-json", "-workers", "8", "-jobs", "1000", "-dist", "blocks", "-spawn-prob", "0.5", "-steal-latency", "20us"}, "")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	var got struct {
		Workers int `json:"workers"`
		Results []struct {
			Policy        string  `json:"policy"`
			Ratio         float64 `json:"makespan_ratio"`
			JobsCompleted int     `json:"jobs_completed"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Workers != 8 || len(got.Results) != 8 || got.Results[0].Policy != "none" {
		t.Fatalf("got %+v", got)
	}
	for _, r := range got.Results {
		if r.JobsCompleted <= 1000 || r.Ratio < 1 {
			t.Errorf("%s: %d jobs (spawning should add some), ratio %.3f", r.Policy, r.JobsCompleted, r.Ratio)
		}
	}
}

func TestSimRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-workers", "0"}, {"-dist", "zigzag"}, {"-cost", "lognormal"}, {"-policies", "psychic"}, {"-nope"},
	} {
		if code, _, _ := runWith(append([]string{"sim"}, args...), ""); code != 2 {
			t.Errorf("%v: code %d, want 2", args, code)
		}
	}
}

func TestSimSVG(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out.svg")
	code, out, errs := runWith([]string{"sim", "-svg", name, "-workers", "3", "-jobs", "60", "-cost", "fixed"}, "")
	if code != 0 || errs != "" {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	if !strings.Contains(out, "60 jobs (fixed, mean 1ms, start: first) on 3 workers") ||
		!strings.Contains(out, "chart written to "+name) {
		t.Errorf("output:\n%s", out)
	}
	svg, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(svg, []byte("<?xml")) && !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Fatalf("not an SVG file: %.40q", svg)
	}
	// -svg alone picks the chart's policies.
	for _, want := range []string{"none: makespan 60ms", "one/random: makespan 20ms", "half/random: makespan 20ms", "worker 2"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestSimSVGDefaultsAndOverrides(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runWith([]string{"sim", "-svg", filepath.Join(dir, "a.svg")}, "")
	if code != 0 || !strings.Contains(out, "2000 jobs (exponential, mean 1ms, start: first) on 8 workers") {
		t.Fatalf("code %d, output:\n%s", code, out)
	}
	var policies []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 7 && f[0] != "policy" {
			policies = append(policies, f[0])
		}
	}
	if got := strings.Join(policies, ","); got != "none,one/random,half/random" {
		t.Errorf("policies %s, want none,one/random,half/random", got)
	}
	// Flags given keep their values; JSON stays alone on stdout.
	name := filepath.Join(dir, "b.svg")
	code, out, _ = runWith([]string{"sim", "-json", "-svg", name, "-workers", "12", "-jobs", "300", "-policies", "central,half/most_loaded"}, "")
	var got struct {
		Workers int `json:"workers"`
		Results []struct {
			Policy string `json:"policy"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("code %d, %v:\n%s", code, err, out)
	}
	if got.Workers != 12 || len(got.Results) != 2 || got.Results[0].Policy != "central" {
		t.Errorf("got %+v", got)
	}
	svg, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"central queue", "half/most_loaded", "workers 0-7 of 12 shown", "max of all 12", "mean of all 12"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestSimSVGErrors(t *testing.T) {
	code, _, errs := runWith([]string{"sim", "-svg", filepath.Join(t.TempDir(), "no", "such", "dir.svg"), "-jobs", "10"}, "")
	if code != 1 || !strings.Contains(errs, "steal sim:") {
		t.Errorf("unwritable file: code %d stderr %q", code, errs)
	}
	if code, _, errs := runWith([]string{"sim", "extra"}, ""); code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("stray argument: code %d stderr %q", code, errs)
	}
}

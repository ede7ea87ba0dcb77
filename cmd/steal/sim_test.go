package main

import (
	"encoding/json"
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

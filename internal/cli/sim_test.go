package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
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

func TestSimSamples(t *testing.T) {
	code, out, errs := runWith([]string{"sim", "-json", "-samples", "-workers", "3", "-jobs", "60", "-cost", "fixed"}, "")
	if code != 0 || errs != "" {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	var got simJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// -samples alone picks the chart's policies.
	var policies []string
	for _, r := range got.Results {
		policies = append(policies, r.Policy)
	}
	if strings.Join(policies, ",") != "none,one/random,half/random" || got.Workers != 3 || got.Jobs != 60 {
		t.Fatalf("workers %d jobs %d policies %v", got.Workers, got.Jobs, policies)
	}
	for _, r := range got.Results {
		n := len(r.Samples)
		if n < 2 || n > 1000 {
			t.Fatalf("%s: %d samples", r.Policy, n)
		}
		first, last := r.Samples[0], r.Samples[n-1]
		// Every job starts on worker 0: at time 0 the three workers run
		// one each (none: worker 0 alone) and all are done by the end.
		queued := 0
		for _, q := range first.Queues {
			queued += int(q)
		}
		if r.Policy == "none" && (first.Queues[0] != 59 || queued != 59) || queued != 57 && r.Policy != "none" {
			t.Errorf("%s: first sample %+v", r.Policy, first)
		}
		if first.AtMS != 0 || last.AtMS < r.MakespanMS || slices.Max(last.Queues) != 0 {
			t.Errorf("%s: first sample at %v ms, last %+v, makespan %v ms", r.Policy, first.AtMS, last, r.MakespanMS)
		}
		for _, s := range r.Samples {
			if len(s.Queues) != 3 || s.Utilisation < 0 || s.Utilisation > 1 {
				t.Fatalf("%s: sample %+v", r.Policy, s)
			}
		}
	}
}

func TestSimSampleDefaultsAndOverrides(t *testing.T) {
	code, out, _ := runWith([]string{"sim", "-json", "-samples"}, "")
	var got simJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("code %d, %v", code, err)
	}
	if got.Workers != 8 || got.Jobs != 2000 || len(got.Results) != 3 || got.Results[2].Policy != "half/random" {
		t.Fatalf("workers %d jobs %d, %d results", got.Workers, got.Jobs, len(got.Results))
	}
	// Flags given keep their values.
	code, out, _ = runWith([]string{"sim", "-json", "-samples", "-workers", "12", "-jobs", "300", "-policies", "central,half/most_loaded"}, "")
	got = simJSON{}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("code %d, %v:\n%s", code, err, out)
	}
	if got.Workers != 12 || len(got.Results) != 2 || got.Results[0].Policy != "central" {
		t.Fatalf("got %+v", got)
	}
	// At time 0 each of the 12 workers has taken one of the 300 jobs.
	if s := got.Results[0].Samples[0]; s.Central != 288 || len(s.Queues) != 12 {
		t.Errorf("central run's first sample %+v, want 288 jobs in the central queue", s)
	}
	// Without -samples, no samples.
	code, out, _ = runWith([]string{"sim", "-json", "-workers", "2", "-jobs", "10"}, "")
	if code != 0 || strings.Contains(out, "samples") {
		t.Errorf("code %d, output with samples:\n%s", code, out)
	}
}

func TestSimSamplesErrors(t *testing.T) {
	code, out, errs := runWith([]string{"sim", "-samples", "-jobs", "10"}, "")
	if code != 2 || out != "" || !strings.Contains(errs, "steal sim: -samples needs -json") {
		t.Errorf("-samples without -json: code %d stdout %q stderr %q", code, out, errs)
	}
	if code, _, errs := runWith([]string{"sim", "extra"}, ""); code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("stray argument: code %d stderr %q", code, errs)
	}
}

func TestChartSamplingIsBounded(t *testing.T) {
	for _, workers := range []int{1, 8, 64, 10_000} {
		wl := sim.Workload{Workers: workers, Jobs: 5000, Distribution: coord.First,
			Cost: sim.Cost{Model: sim.Exponential, Mean: time.Millisecond}, Seed: 1}
		wl.Sample = chartSampling(wl)
		if wl.Sample.Every <= 0 || wl.Sample.Max > 1000 || wl.Sample.Max*workers > max(4<<20, 2*workers) {
			t.Fatalf("%d workers: sampling %+v", workers, wl.Sample)
		}
		for _, r := range wl.Compare([]sim.Policy{{Mode: sim.NoSteal}, {Mode: sim.StealHalf}}) {
			if n := len(r.Samples); n < 2 || n > wl.Sample.Max {
				t.Errorf("%d workers, %v: %d samples, max %d", workers, r.Policy, n, wl.Sample.Max)
			}
		}
	}
	// No jobs: still a positive interval.
	if s := chartSampling(sim.Workload{Workers: 4}); s.Every <= 0 {
		t.Errorf("empty workload: sampling %+v", s)
	}
}

// A refused value is named with its flag, once, and the policy names take
// no stray slash.
func TestSimBadValuesNameTheirFlag(t *testing.T) {
	for _, tc := range []struct{ flag, value string }{
		{"-dist", "zigzag"}, {"-cost", "lognormal"}, {"-policies", "psychic"},
		{"-policies", "none/"}, {"-policies", "one/"}, {"-policies", "half/nearest"},
	} {
		code, _, errs := runWith([]string{"sim", tc.flag, tc.value}, "")
		want := "steal sim: " + tc.flag + ": "
		if code != 2 || !strings.HasPrefix(errs, want) || !strings.Contains(errs, strconv.Quote(tc.value)) ||
			strings.Contains(errs, "sim: sim:") {
			t.Errorf("%s %s: code %d, stderr %q; want 2 and %q...%q", tc.flag, tc.value, code, errs, want, tc.value)
		}
	}
}

// TestSimWorkloadErrorsNameTheirFlag: a value the workload refuses (a
// count or duration out of range) was reported in the library's words,
// "steal sim: sim: mean cost must be positive, have 0s", which names no
// flag; each now names its flag and the value, as -dist, -cost and
// -policies do.
func TestSimWorkloadErrorsNameTheirFlag(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"-workers", "0", fmt.Sprintf("-workers must be in [1, %d], not 0", sim.MaxWorkers)},
		{"-workers", strconv.Itoa(sim.MaxWorkers + 1), fmt.Sprintf("-workers must be in [1, %d], not %d", sim.MaxWorkers, sim.MaxWorkers+1)},
		{"-jobs", "-1", fmt.Sprintf("-jobs must be in [0, %d], not -1", sim.MaxTasks)},
		{"-jobs", strconv.Itoa(sim.MaxTasks + 1), fmt.Sprintf("-jobs must be in [0, %d], not %d", sim.MaxTasks, sim.MaxTasks+1)},
		{"-mean", "0s", "-mean must be positive, not 0s"},
		{"-mean", "-1ms", "-mean must be positive, not -1ms"},
		{"-steal-latency", "-1ns", "-steal-latency must not be negative, not -1ns"},
		{"-spawn-prob", "1.5", "-spawn-prob must be in [0, 1], not 1.5"},
		{"-spawn-prob", "NaN", "-spawn-prob must be in [0, 1], not NaN"},
		{"-spawn-prob", "-Inf", "-spawn-prob must be in [0, 1], not -Inf"},
		{"-spawn-children", "-1", "-spawn-children must be in [0, 67108864], not -1"},
		{"-spawn-depth", "-2", "-spawn-depth must not be negative, not -2"},
	} {
		code, out, errs := runWith([]string{"sim", "-jobs", "10", tc.flag, tc.value}, "")
		if code != 2 || out != "" || errs != "steal sim: "+tc.want+"\n" {
			t.Errorf("%s %s: code %d, stdout %q, stderr %q; want 2 and %q", tc.flag, tc.value, code, out, errs, tc.want)
		}
	}
}

// TestSimHelpGivesTheLimits: -h gave no bound for -workers or -jobs, and
// said nothing of the cap on spawned jobs, past which jobs stop spawning
// however deep -spawn-depth asks for.
func TestSimHelpGivesTheLimits(t *testing.T) {
	code, _, errs := runWith([]string{"sim", "-h"}, "")
	for _, want := range []string{
		fmt.Sprintf("number of workers, at most %d", sim.MaxWorkers),
		fmt.Sprintf("number of initial jobs, at most %d", sim.MaxTasks),
		fmt.Sprintf("jobs stop spawning once a run has %d", sim.MaxTasks),
	} {
		if code != 0 || !strings.Contains(errs, want) {
			t.Errorf("code %d, -h lacks %q:\n%s", code, want, errs)
		}
	}
}

// TestSimTableShowsSubMicrosecondTimes: times were rounded to the
// microsecond, so ten 1 ns jobs on three workers printed a makespan of 0s
// with a makespan/bound of 2.500, over a lower bound of 0s.
func TestSimTableShowsSubMicrosecondTimes(t *testing.T) {
	code, out, errs := runWith([]string{"sim", "-mean", "1ns", "-jobs", "10", "-workers", "3", "-cost", "fixed",
		"-policies", "none,one/most_loaded"}, "")
	if code != 0 || errs != "" {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 7 {
			rows[f[0]] = f[1] + " " + f[2]
		}
	}
	if rows["none"] != "10ns 2.500" || rows["one/most_loaded"] != "4ns 1.000" ||
		!strings.Contains(out, "lower bound max(work/W, longest job) = 4ns;") {
		t.Errorf("rows %q:\n%s", rows, out)
	}
}

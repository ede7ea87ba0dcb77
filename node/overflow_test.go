package node

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

const yearMS = 365 * 24 * 3600 * 1000

// simResults sends a run_simulation and decodes its results.
func simResults(t *testing.T, n *Node, body string) []map[string]any {
	t.Helper()
	var reply struct {
		Type    string           `json:"type"`
		Results []map[string]any `json:"results"`
	}
	got := ask(t, n, body)
	if err := json.Unmarshal([]byte(got), &reply); err != nil || reply.Type != "run_simulation_ok" {
		t.Fatalf("reply %s (%v)", got, err)
	}
	return reply.Results
}

// 600 one-year jobs are 600 years of work, beyond an int64 of
// nanoseconds; the bound on three workers is 200 years. A run cut off
// after a year says it did not finish and how many jobs are left, and
// gives no makespan.
func TestRunSimulationBeyondDurationRange(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 600, "cost": {"model": "fixed", "mean_ms": 31536000000}}`)
	r := simResults(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 31536000000, "policies": ["one/most_loaded"]}`)[0]
	if r["lower_bound_ms"] != float64(200*yearMS) {
		t.Errorf("lower_bound_ms %v, want %v", r["lower_bound_ms"], float64(200*yearMS))
	}
	if r["finished"] != false || r["jobs_completed"] != 3.0 || r["jobs_left"] != 597.0 {
		t.Errorf("finished %v, jobs_completed %v, jobs_left %v; want false, 3, 597", r["finished"], r["jobs_completed"], r["jobs_left"])
	}
	for _, k := range []string{"makespan_ms", "makespan_ratio"} {
		if v, ok := r[k]; ok {
			t.Errorf("unfinished run reports %s %v", k, v)
		}
	}
}

// A run that did not finish reports no makespan; one that did reports
// jobs_left only by its absence.
func TestRunSimulationCutOffReportsNoMakespan(t *testing.T) {
	r := simResults(t, New(), `{"type": "run_simulation", "msg_id": 1, "duration_ms": 1, "policies": ["one/most_loaded"]}`)[0]
	if _, ok := r["makespan_ms"]; ok || r["finished"] != false || r["jobs_left"] != 6.0 || r["jobs_completed"] != 0.0 {
		t.Fatalf("result %v; want finished false, 6 jobs left, no makespan", r)
	}
	r = simResults(t, New(), `{"type": "run_simulation", "msg_id": 1, "duration_ms": 1000, "policies": ["one/most_loaded"]}`)[0]
	if _, ok := r["jobs_left"]; ok || r["finished"] != true || r["makespan_ms"] != 20.0 {
		t.Fatalf("result %v; want finished at 20 ms", r)
	}
}

// Pareto draws past 2^63 ns saturate rather than wrapping to 1 ns: with
// seed 1, two of these jobs come from that far tail.
func TestInitParetoCostsDoNotWrap(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 10000, "seed": 1, "cost": {"model": "pareto", "mean_ms": 31536000000}}`)
	floor := 365 * 24 * time.Hour / 3 // Pareto(1.5)'s scale: the smallest draw
	top := 0
	for _, j := range n.cluster.Snapshot()[0].Queue {
		if j.Cost < floor {
			t.Fatalf("%s costs %v, below the minimum %v", j.ID, j.Cost, floor)
		}
		if j.Cost == math.MaxInt64 {
			top++
		}
	}
	if top == 0 {
		t.Fatal("no job drew from the far tail: the test misses what it is for")
	}
}

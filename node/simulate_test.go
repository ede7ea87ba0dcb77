package node

import (
	"strings"
	"testing"
)

func TestRunSimulationCutOffLeavesTheRest(t *testing.T) {
	n := New() // example cluster: 3 + 3 jobs of 10 ms on w1, w2
	got := ask(t, n, `{"type": "run_simulation", "msg_id": 4, "duration_ms": 15, "policies": ["none", "one/most_loaded"]}`)
	// Under "none" (applied: listed first) w1 and w2 each finish one job
	// and are halfway through the next; w3 idles.
	want := `{"type": "run_simulation_ok", "in_reply_to": 4, "duration_ms": 15, "results": [` +
		`{"policy": "none", "finished": false, "lower_bound_ms": 20, "utilisation": 0.667, ` +
		`"steals": 0, "failed_steals": 0, "jobs_moved": 0, "jobs_completed": 2, "jobs_left": 4, "completed": {"w1": 1, "w2": 1, "w3": 0}, ` +
		`"idle_ms": {"w1": 0, "w2": 0, "w3": 15}, "queue_sizes": {"w1": 2, "w2": 2, "w3": 0}}, ` +
		`{"policy": "one/most_loaded", "finished": false, "lower_bound_ms": 20, "utilisation": 1, ` +
		`"steals": 2, "failed_steals": 0, "jobs_moved": 2, "jobs_completed": 3, "jobs_left": 3, "completed": {"w1": 1, "w2": 1, "w3": 1}, ` +
		`"idle_ms": {"w1": 0, "w2": 0, "w3": 0}, "queue_sizes": {"w1": 1, "w2": 1, "w3": 1}}], "all_idle": false}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	s := n.cluster.Snapshot()
	if ids := s[0].Queue[0].ID + " " + s[0].Queue[1].ID; ids != "job1 job2" || s[0].Queue[0].Cost != DefaultCost.Mean/2 {
		t.Fatalf("w1 left with %+v, want job1 (5ms left) and job2", s[0].Queue)
	}
	if n.cluster.Live() != 4 {
		t.Fatalf("%d jobs live, want 4", n.cluster.Live())
	}
	// Running on to the end completes what is left.
	got = ask(t, n, `{"type": "run_simulation", "msg_id": 5, "duration_ms": 1000, "policies": ["one/most_loaded"]}`)
	if !strings.Contains(got, `"finished": true`) || !strings.HasSuffix(got, `"all_idle": true}`) {
		t.Fatalf("got %s", got)
	}
}

func TestRunSimulationLeavesInFlightJobsAlone(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "pop_job", "msg_id": 1, "worker": "w1"}`)
	got := ask(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 500, "policies": ["one/most_loaded"]}`)
	if !strings.Contains(got, `"jobs_completed": 5`) || !strings.HasSuffix(got, `"all_idle": false}`) {
		t.Fatalf("got %s", got)
	}
	if n.cluster.Live() != 1 || n.cluster.Snapshot()[0].InFlight[0].ID != "job0" {
		t.Fatalf("in-flight job0 lost: %+v", n.cluster.Snapshot())
	}
}

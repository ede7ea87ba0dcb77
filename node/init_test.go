package node

import (
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

func TestInitDistributions(t *testing.T) {
	for _, tc := range []struct {
		body  string
		sizes []int
	}{
		{`{"type": "init", "msg_id": 1, "workers": ["a", "b", "c"], "jobs_to_distribute": 7}`, []int{7, 0, 0}},
		{`{"type": "init", "msg_id": 1, "workers": ["a", "b", "c"], "jobs_to_distribute": 7, "distribution": "blocks"}`, []int{2, 2, 3}},
		{`{"type": "init", "msg_id": 1, "workers": ["a", "b", "c"], "jobs_to_distribute": 7, "distribution": "round_robin"}`, []int{3, 2, 2}},
		{`{"type": "init", "msg_id": 1, "workers": ["a", "b", "c"], "jobs_to_distribute": 7, "distribution": "skewed"}`, []int{4, 2, 1}},
		{`{"type": "init", "msg_id": 1, "node_id": "n1", "node_ids": ["n1"]}`, []int{0, 0, 0}},
	} {
		n := New()
		if got := ask(t, n, tc.body); got != `{"type": "init_ok", "in_reply_to": 1}` {
			t.Fatalf("%s: %s", tc.body, got)
		}
		for i, w := range n.cluster.Workers() {
			if w.QueueSize != tc.sizes[i] {
				t.Errorf("%s: sizes %+v, want %v", tc.body, n.cluster.Workers(), tc.sizes)
				break
			}
		}
	}
}

func TestInitSettings(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1, "workers": ["x", "y"], "jobs_to_distribute": 3, "victim": "random",
		"seed": 42, "cost": {"model": "exponential", "mean_ms": 4}, "steal_latency_ms": 0.25}`)
	want := sim.Cost{Model: sim.Exponential, Mean: 4 * time.Millisecond}
	if n.cost != want || n.latency != 250*time.Microsecond || n.seed != 42 || n.cluster.Victims() != coord.Random {
		t.Fatalf("cost %v latency %v seed %d victims %v", n.cost, n.latency, n.seed, n.cluster.Victims())
	}
	q := n.cluster.Snapshot()[0].Queue
	wl := sim.Workload{Cost: want, Seed: 42}
	if len(q) != 3 || q[0].ID != "job0" || q[2].ID != "job2" || q[1].Cost != wl.JobCost(1) {
		t.Fatalf("jobs %+v", q)
	}
	// A partial cost spec keeps the default's other half.
	ask(t, n, `{"type": "init", "msg_id": 2, "cost": {"model": "uniform"}}`)
	if n.cost != (sim.Cost{Model: sim.Uniform, Mean: DefaultCost.Mean}) || n.latency != 0 || n.seed != 0 {
		t.Fatalf("re-init kept old settings: %v %v %d", n.cost, n.latency, n.seed)
	}
}

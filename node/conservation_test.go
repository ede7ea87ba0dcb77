package node

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/worksteal/steal/coord"
)

// TestConservationUnderRandomMessages sends long random sequences of every
// message type, valid and not, and checks after each that no job was lost
// or duplicated: the cluster's own check passes, and the live jobs are
// exactly those created (init, push) and not yet completed or simulated to
// completion, as the replies report.
func TestConservationUnderRandomMessages(t *testing.T) {
	workers := []string{"w1", "w2", "w3", "ghost"}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 99))
		n := New()
		live := 6
		pick := func() string { return workers[r.IntN(len(workers))] }
		for step := range 3000 {
			var body string
			switch r.IntN(7) {
			case 0:
				body = fmt.Sprintf(`{"type": "push_job", "msg_id": %d, "worker": %q, "job_id": "p%d", "cost_ms": %d}`, step, pick(), r.IntN(40), r.IntN(20))
			case 1:
				body = fmt.Sprintf(`{"type": "steal_job", "msg_id": %d, "thief_worker": %q, "busy_workers": [%q, %q]}`, step, pick(), pick(), pick())
			case 2, 3:
				body = fmt.Sprintf(`{"type": "pop_job", "msg_id": %d, "worker": %q}`, step, pick())
			case 4:
				w := pick()
				id := fmt.Sprintf("p%d", r.IntN(40))
				if s := snapshotOf(n, w); s != nil && len(s.InFlight) > 0 {
					id = s.InFlight[0].ID
				}
				body = fmt.Sprintf(`{"type": "complete_job", "msg_id": %d, "worker": %q, "job_id": %q}`, step, w, id)
			case 5:
				body = fmt.Sprintf(`{"type": "run_simulation", "msg_id": %d, "duration_ms": %d, "policies": ["half/random"]}`, step, 1+r.IntN(15))
			case 6:
				if r.IntN(20) == 0 {
					body = fmt.Sprintf(`{"type": "init", "msg_id": %d, "jobs_to_distribute": 9, "distribution": "round_robin"}`, step)
				} else {
					body = fmt.Sprintf(`{"type": "check_cluster_state", "msg_id": %d}`, step)
				}
			}
			got := ask(t, n, body)
			if strings.Contains(got, "init_ok") {
				live = 9 // init replaces every job
			} else {
				live += delta(got)
			}
			if err := n.cluster.Check(); err != nil {
				t.Fatalf("seed %d step %d: %s: %v", seed, step, body, err)
			}
			if n.cluster.Live() != live {
				t.Fatalf("seed %d step %d: %s -> %s: live %d, want %d", seed, step, body, got, n.cluster.Live(), live)
			}
		}
	}
}

// delta is the change in live jobs a successful reply reports.
func delta(reply string) int {
	switch {
	case strings.Contains(reply, `"type": "error"`):
		return 0
	case strings.Contains(reply, "push_job_ok"):
		return 1
	case strings.Contains(reply, "complete_job_ok"):
		return -1
	case strings.Contains(reply, "run_simulation_ok"):
		var done int
		fmt.Sscanf(reply[strings.Index(reply, `"jobs_completed": `):], `"jobs_completed": %d`, &done)
		return -done
	}
	return 0
}

func snapshotOf(n *Node, worker string) *coord.Snapshot {
	for _, s := range n.cluster.Snapshot() {
		if s.Name == worker {
			return &s
		}
	}
	return nil
}

package node

import "testing"

func TestStealJob(t *testing.T) {
	n := New()
	steps := []struct{ body, want string }{
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w2", "w1"]}`,
			`{"type": "job_stolen", "in_reply_to": 1, "thief": "w3", "victim": "w2", "job_id": "job5", "victim_queue_size": 2}`},
		// Omitted busy_workers: every other worker; w1 now has the most.
		{`{"type": "steal_job", "msg_id": 2, "thief_worker": "w2"}`,
			`{"type": "job_stolen", "in_reply_to": 2, "thief": "w2", "victim": "w1", "job_id": "job2", "victim_queue_size": 2}`},
		// The thief w3 holds job5 at its front; stealing from it takes that.
		{`{"type": "steal_job", "msg_id": 3, "thief_worker": "w1", "busy_workers": ["w3"]}`,
			`{"type": "job_stolen", "in_reply_to": 3, "thief": "w1", "victim": "w3", "job_id": "job5", "victim_queue_size": 0}`},
	}
	for _, s := range steps {
		if got := ask(t, n, s.body); got != s.want {
			t.Fatalf("%s\n got %s\nwant %s", s.body, got, s.want)
		}
	}
	if err := n.cluster.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestStealJobRandomVictimIsSeeded(t *testing.T) {
	victims := func(seed string) (out string) {
		n := New()
		ask(t, n, `{"type": "init", "msg_id": 1, "workers": ["a", "b", "c", "d"], "jobs_to_distribute": 40,
			"distribution": "round_robin", "victim": "random", "seed": `+seed+`}`)
		for range 8 {
			out += ask(t, n, `{"type": "steal_job", "msg_id": 2, "thief_worker": "d", "busy_workers": ["a", "b", "c"]}`)
		}
		return out
	}
	first, again, other := victims("5"), victims("5"), victims("6")
	if first != again {
		t.Fatal("same seed, different victims")
	}
	if first == other {
		t.Fatal("seed has no effect on random victims")
	}
}

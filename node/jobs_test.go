package node

import "testing"

// A worker's life through the coordinator: push, pop its own, pop stolen,
// complete, until the cluster is idle.
func TestPushPopComplete(t *testing.T) {
	n := New()
	steps := []struct{ body, want string }{
		{`{"type": "init", "msg_id": 1, "workers": ["w1", "w2"]}`,
			`{"type": "init_ok", "in_reply_to": 1}`},
		{`{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "a", "cost_ms": 5}`,
			`{"type": "push_job_ok", "in_reply_to": 2, "worker": "w1", "job_id": "a", "queue_size": 1}`},
		{"{\"type\": \"push_job\", \"msg_id\": 3, \"worker\": \"w1\", \"job_id\": \"b\", \"cost_ms\": 2,\n \"payload\": {\"url\": \"x\",\n \"n\": [1, 2]}}",
			`{"type": "push_job_ok", "in_reply_to": 3, "worker": "w1", "job_id": "b", "queue_size": 2}`},
		// The owner pops its front: b, pushed last (LIFO).
		{`{"type": "pop_job", "msg_id": 4, "worker": "w1"}`,
			`{"type": "pop_job_ok", "in_reply_to": 4, "worker": "w1", "job_id": "b", "source": "own", "cost_ms": 2, "payload": {"url":"x","n":[1,2]}, "queue_size": 1}`},
		// w2 has nothing: it steals a from the back of w1.
		{`{"type": "pop_job", "msg_id": 5, "worker": "w2"}`,
			`{"type": "pop_job_ok", "in_reply_to": 5, "worker": "w2", "job_id": "a", "source": "stolen", "victim": "w1", "cost_ms": 5, "queue_size": 0}`},
		{`{"type": "complete_job", "msg_id": 6, "worker": "w1", "job_id": "b"}`,
			`{"type": "complete_job_ok", "in_reply_to": 6, "worker": "w1", "job_id": "b", "all_idle": false}`},
		{`{"type": "complete_job", "msg_id": 7, "worker": "w2", "job_id": "a"}`,
			`{"type": "complete_job_ok", "in_reply_to": 7, "worker": "w2", "job_id": "a", "all_idle": true}`},
	}
	for _, s := range steps {
		if got := ask(t, n, s.body); got != s.want {
			t.Fatalf("%s\n got %s\nwant %s", s.body, got, s.want)
		}
	}
}

func TestPushJobWithoutCostDrawsFromTheModel(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "push_job", "msg_id": 1, "worker": "w3", "job_id": "z", "payload": null}`)
	j := n.cluster.Snapshot()[2].Queue[0]
	if j.Cost != n.jobCost("z") || j.Cost != DefaultCost.Mean || j.Payload != "" {
		t.Fatalf("job %+v", j)
	}
	// The example cluster's jobs carry no cost: pop_job reports the draw.
	got := ask(t, n, `{"type": "pop_job", "msg_id": 2, "worker": "w1"}`)
	if got != `{"type": "pop_job_ok", "in_reply_to": 2, "worker": "w1", "job_id": "job0", "source": "own", "cost_ms": 10, "queue_size": 2}` {
		t.Fatalf("got %s", got)
	}
}

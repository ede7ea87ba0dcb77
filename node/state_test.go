package node

import "testing"

func TestCheckClusterState(t *testing.T) {
	n := New()
	got := ask(t, n, `{"type": "check_cluster_state", "msg_id": 2}`)
	want := `{"type": "cluster_state_ok", "in_reply_to": 2, "workers": {"w1": {"queue_size": 3, "state": "busy"}, ` +
		`"w2": {"queue_size": 3, "state": "busy"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": false}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The exercise's idle example: after init with no jobs every worker is idle.
	ask(t, n, `{"type": "init", "msg_id": 3, "workers": ["w1", "w2", "w3"]}`)
	got = ask(t, n, `{"type": "check_cluster_state", "msg_id": 2}`)
	want = `{"type": "cluster_state_ok", "in_reply_to": 2, "workers": {"w1": {"queue_size": 0, "state": "idle"}, ` +
		`"w2": {"queue_size": 0, "state": "idle"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": true}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestInFlightJobMakesAWorkerBusy(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1, "workers": ["b", "a"], "jobs_to_distribute": 1}`)
	ask(t, n, `{"type": "pop_job", "msg_id": 2, "worker": "b"}`)
	got := ask(t, n, `{"type": "check_cluster_state", "msg_id": 3}`)
	want := `{"type": "cluster_state_ok", "in_reply_to": 3, "workers": {"b": {"queue_size": 0, "state": "busy"}, ` +
		`"a": {"queue_size": 0, "state": "idle"}}, "all_idle": false}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

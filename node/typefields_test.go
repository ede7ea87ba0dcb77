package node

import (
	"strings"
	"testing"
)

// A message is checked against its own type's fields only. The package
// doc lists each message's fields and says that fields the node does not
// know are ignored; a field of another message, whatever its type, is
// not one of this message's. Before, every message was decoded into the
// union of all fields and a mistyped value anywhere was error 12: a
// check_cluster_state carrying "worker": 5 was refused, and an unknown
// type got error 12 naming a field instead of error 10.
func TestOnlyTheTypesOwnFieldsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{`{"type": "echo", "msg_id": 1, "worker": 5}`,
			`{"type": "error", "in_reply_to": 1, "code": 10, "text": "unknown message type \"echo\""}`},
		{`{"type": "echo", "msg_id": 1, "cost": [], "busy_workers": [null]}`,
			`{"type": "error", "in_reply_to": 1, "code": 10, "text": "unknown message type \"echo\""}`},
		{`{"type": "check_cluster_state", "msg_id": 1, "worker": 5, "workers": "all"}`,
			`{"type": "cluster_state_ok", "in_reply_to": 1, "workers": {"w1": `},
		{`{"type": "pop_job", "msg_id": 1, "worker": "w1", "job_id": 7, "thief_worker": 5}`,
			`{"type": "pop_job_ok", "in_reply_to": 1, "worker": "w1", "job_id": "job0", "source": "own"`},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "cost_ms": "x", "payload": 1}`,
			`{"type": "job_stolen", "in_reply_to": 1, "thief": "w3", "victim": "w1"`},
		{`{"msg_id": 1, "worker": 5}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "missing field type"}`},
		// The type's own fields are still checked, whatever comes first.
		{`{"type": "pop_job", "msg_id": 1, "thief_worker": 5, "worker": 6}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "worker must be a string, not a number"}`},
		{`{"worker": 6, "msg_id": 1, "type": "pop_job"}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "worker must be a string, not a number"}`},
		{`{"type": "init", "msg_id": 1, "worker": 1, "cost": {"model": 3}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "cost.model must be a string, not a number"}`},
		// A mistyped field of the message comes before a bad msg_id, as it did.
		{`{"type": "pop_job", "msg_id": "x", "worker": 6}`,
			`{"type": "error", "code": 12, "text": "worker must be a string, not a number"}`},
		// Bad strings are refused anywhere in a message, as documented.
		{`{"type": "check_cluster_state", "msg_id": 1, "worker": "\ud800"}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "lone surrogate \\ud800 in body.worker"}`},
	} {
		n := New()
		before := fingerprint(n)
		got := ask(t, n, tc.body)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s\n got %.200s\nwant %s", tc.body, got, tc.want)
		}
		if strings.Contains(tc.want, `"error"`) && fingerprint(n) != before {
			t.Errorf("%s: refused, but changed the node", tc.body)
		}
	}
}

// complete_job with an empty job_id names the id as empty, as an unknown
// worker with an empty name is: the text read "unknown job:  is not in
// flight at w1", as if it named no job at all.
func TestCompleteEmptyJobIDIsNamed(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "pop_job", "msg_id": 1, "worker": "w1"}`)
	got := ask(t, n, `{"type": "complete_job", "msg_id": 2, "worker": "w1", "job_id": ""}`)
	want := `{"type": "error", "in_reply_to": 2, "code": 1003, "text": "unknown job: \"\" (an empty id) is not in flight at w1"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

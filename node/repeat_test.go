package node

import (
	"strings"
	"testing"
)

// A key that appears twice in the envelope, the body or init's cost, for a
// field the node reads, is malformed: JSON leaves such an object's meaning
// to the reader (RFC 8259, 4), and readers differ. Python and JavaScript
// keep the last value; encoding/json kept the last leaf but merged two
// objects, so that a cost of {"model": "uniform"} then {"mean_ms": 5} was
// uniform to the node and fixed to a Python peer. The request changes
// nothing. A key the node does not read for the message is ignored, twice
// or not.
func TestARepeatedFieldIsMalformed(t *testing.T) {
	for _, tc := range []struct {
		msg, want string
	}{
		{`{"src": "c", "dest": "n", "body": {"type": "pop_job", "msg_id": 1, "worker": "w1", "worker": "w2"}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "repeated field worker"}`},
		{`{"src": "c", "dest": "n", "body": {"type": "pop_job", "type": "check_cluster_state", "msg_id": 1}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "repeated field type"}`},
		{`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 1, "msg_id": 2}}`,
			`{"type": "error", "in_reply_to": 2, "code": 12, "text": "repeated field msg_id"}`},
		{`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 1, "cost": {"model": "uniform"}, "cost": {"mean_ms": 5}}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "repeated field cost"}`},
		{`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 1, "cost": {"model": "uniform", "model": "pareto"}}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "repeated field cost.model"}`},
		{`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 1, "workers": ["a"], "t\u0079pe": "init"}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "repeated field type"}`},
		{`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 1, "workers": ["a"]}, "body": {"type": "init", "msg_id": 2}}`,
			`{"type": "error", "in_reply_to": 2, "code": 12, "text": "repeated field body"}`},
		{`{"src": "c", "src": "d", "dest": "n", "body": {"type": "steal_job", "msg_id": 1, "thief_worker": "w3"}}`,
			`{"type": "error", "in_reply_to": 1, "code": 12, "text": "repeated field src"}`},
		// Not fields the node reads for the message: ignored.
		{`{"src": "c", "dest": "n", "id": 1, "id": 2, "body": {"type": "check_cluster_state", "msg_id": 1, "worker": "w1", "worker": "w2", "x": 1, "x": 2}}`,
			`{"type": "cluster_state_ok", "in_reply_to": 1, `},
		{`{"src": "c", "dest": "n", "body": {"type": "push_job", "msg_id": 1, "worker": "w3", "job_id": "j", "payload": {"a": 1, "a": 2}}}`,
			`{"type": "push_job_ok", "in_reply_to": 1, `},
	} {
		n := New()
		before := fingerprint(n)
		reply, err := n.Handle([]byte(tc.msg))
		if err != nil {
			t.Errorf("%s: %v", tc.msg, err)
			continue
		}
		_, body, _ := strings.Cut(string(reply), `"body": `)
		if !strings.HasPrefix(body, tc.want) {
			t.Errorf("%s\n got %s\nwant %s", tc.msg, body, tc.want)
		}
		if strings.Contains(body, `"error"`) && fingerprint(n) != before {
			t.Errorf("%s: changed the node", tc.msg)
		}
	}
}

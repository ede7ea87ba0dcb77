package node_test

import (
	"os"
	"strings"

	"github.com/worksteal/steal/node"
)

func ExampleNew() {
	// A new node holds the seed's example cluster until it receives init; the
	// cluster is not idle, since w1 and w2 have queued jobs.
	n := node.New()
	reply, _ := n.Handle([]byte(`{"src": "c1", "dest": "n1", "body": {"type": "check_cluster_state", "msg_id": 1}}`))
	os.Stdout.Write(reply)
	// Output:
	// {"src": "n1", "dest": "c1", "body": {"type": "cluster_state_ok", "in_reply_to": 1, "workers": {"w1": {"queue_size": 3, "state": "busy"}, "w2": {"queue_size": 3, "state": "busy"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": false}}
}

// A worker process uses the node as its coordinator: it pushes the jobs it
// creates, pops its next one and reports completion. Replies come in request
// order; a request that fails (here, completing a job the worker does not
// hold) gets an error reply and changes nothing. Payloads come back compact.
func ExampleNode_Serve() {
	input := `{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 1, "workers": ["a", "b"]}}
{"src": "c", "dest": "n", "body": {"type": "push_job", "msg_id": 2, "worker": "a", "job_id": "j1", "payload": {"n": 7}, "cost_ms": 5}}
{"src": "c", "dest": "n", "body": {"type": "pop_job", "msg_id": 3, "worker": "b"}}
{"src": "c", "dest": "n", "body": {"type": "complete_job", "msg_id": 4, "worker": "a", "job_id": "j1"}}
{"src": "c", "dest": "n", "body": {"type": "complete_job", "msg_id": 5, "worker": "b", "job_id": "j1"}}
`
	node.New().Serve(strings.NewReader(input), os.Stdout, os.Stderr)
	// Output:
	// {"src": "n", "dest": "c", "body": {"type": "init_ok", "in_reply_to": 1}}
	// {"src": "n", "dest": "c", "body": {"type": "push_job_ok", "in_reply_to": 2, "worker": "a", "job_id": "j1", "queue_size": 1}}
	// {"src": "n", "dest": "c", "body": {"type": "pop_job_ok", "in_reply_to": 3, "worker": "b", "job_id": "j1", "source": "stolen", "victim": "a", "cost_ms": 5, "payload": {"n":7}, "queue_size": 0}}
	// {"src": "n", "dest": "c", "body": {"type": "error", "in_reply_to": 4, "code": 1003, "text": "unknown job: j1 is not in flight at a"}}
	// {"src": "n", "dest": "c", "body": {"type": "complete_job_ok", "in_reply_to": 5, "worker": "b", "job_id": "j1", "all_idle": true}}
}

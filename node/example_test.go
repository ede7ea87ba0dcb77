package node_test

import (
	"os"
	"strings"

	"github.com/worksteal/steal/node"
)

// Drive a node as a coordinator: steal for an idle worker, then check the
// cluster. Pretty-printed input spread over lines is accepted too.
func Example() {
	input := `{"src": "client", "dest": "cluster", "body": {"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w1", "w2"]}}
{"src": "client", "dest": "cluster", "body": {"type": "pop_job", "msg_id": 2, "worker": "w3"}}
{
  "src": "client", "dest": "cluster",
  "body": {"type": "check_cluster_state", "msg_id": 3}
}
`
	node.New().Serve(strings.NewReader(input), os.Stdout, os.Stderr)
	// Output:
	// {"src": "cluster", "dest": "client", "body": {"type": "job_stolen", "in_reply_to": 1, "thief": "w3", "victim": "w1", "job_id": "job2", "victim_queue_size": 2}}
	// {"src": "cluster", "dest": "client", "body": {"type": "pop_job_ok", "in_reply_to": 2, "worker": "w3", "job_id": "job2", "source": "own", "cost_ms": 10, "queue_size": 0}}
	// {"src": "cluster", "dest": "client", "body": {"type": "cluster_state_ok", "in_reply_to": 3, "workers": {"w1": {"queue_size": 2, "state": "busy"}, "w2": {"queue_size": 3, "state": "busy"}, "w3": {"queue_size": 0, "state": "busy"}}, "all_idle": false}}
}

// Handle answers a single message; errors come back as error replies.
func ExampleNode_Handle() {
	n := node.New()
	reply, _ := n.Handle([]byte(`{"src": "c", "dest": "n", "body": {"type": "steal_job", "msg_id": 7, "thief_worker": "w9"}}`))
	os.Stdout.Write(reply)
	// Output:
	// {"src": "n", "dest": "c", "body": {"type": "error", "in_reply_to": 7, "code": 1000, "text": "unknown worker: w9"}}
}

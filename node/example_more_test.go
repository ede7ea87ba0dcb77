package node_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/worksteal/steal/node"
)

func ExampleNew() {
	// A new node holds the example cluster of the work-stealing cluster exercise until it receives init; the
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

// A request over one of the limits gets error 12 naming the limit and the
// value, and changes nothing.
func ExampleMaxPolicies() {
	n := node.New()
	policies := `["none"` + strings.Repeat(`, "none"`, node.MaxPolicies) + `]`
	reply, _ := n.Handle([]byte(`{"src": "c", "dest": "n", "body": {"type": "run_simulation", "msg_id": 1, "duration_ms": 10, "policies": ` + policies + `}}`))
	os.Stdout.Write(reply)
	// Output:
	// {"src": "n", "dest": "c", "body": {"type": "error", "in_reply_to": 1, "code": 12, "text": "policies must list 1 to 16 policies (MaxPolicies), not 17"}}
}

// A run cut off before every job is done says so: no makespan, and the
// jobs completed and left.
func ExampleNode_Handle_cutOff() {
	n := node.New()
	reply, _ := n.Handle([]byte(`{"src": "c", "dest": "n", "body": {"type": "run_simulation", "msg_id": 1, "duration_ms": 15, "policies": ["none"]}}`))
	os.Stdout.Write(reply)
	// Output:
	// {"src": "n", "dest": "c", "body": {"type": "run_simulation_ok", "in_reply_to": 1, "duration_ms": 15, "results": [{"policy": "none", "finished": false, "lower_bound_ms": 20, "utilisation": 0.667, "steals": 0, "failed_steals": 0, "jobs_moved": 0, "jobs_completed": 2, "jobs_left": 4, "completed": {"w1": 1, "w2": 1, "w3": 0}, "idle_ms": {"w1": 0, "w2": 0, "w3": 15}, "queue_sizes": {"w1": 2, "w2": 2, "w3": 0}}], "all_idle": false}}
}

// A field of the wrong JSON type is named with the type it must have.
func ExampleDecodeErrorText() {
	var req struct {
		Worker string `json:"worker"`
	}
	err := json.Unmarshal([]byte(`{"worker": 5}`), &req)
	fmt.Println(node.DecodeErrorText(err))
	// Output: worker must be a string, not a number
}

// A program that serves the protocol over a transport of its own reports
// skipped input through Reports, so that a log nobody reads cannot stop
// its replies; Close waits for the reports to be written.
func ExampleReports() {
	var log strings.Builder
	reports := node.NewReports(&log)
	reports.Printf("steal node: skipped line %d: %s\n", 3, "not JSON")
	reports.Close()
	fmt.Print(log.String())
	// Output: steal node: skipped line 3: not JSON
}

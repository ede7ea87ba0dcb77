package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/worksteal/steal/node"
)

// The gateway frames its input, reports what it skips and writes its
// replies exactly as stealcluster node does: on input whose messages need no
// cluster (framing cases, bad envelopes, requests refused before they
// reach the cluster, the simulator's messages), its output and its log
// are byte for byte stealcluster node's.
func TestGatewayWireIsTheNodes(t *testing.T) {
	msg := func(body string) string {
		return `{"src": "c<1>", "dest": "n&1", "body": {` + body + "}}\n"
	}
	in := strings.Join([]string{
		"\n",
		msg(`"type": "init", "msg_id": 1, "workers": ["a", "b"], "jobs_to_distribute": 3`),
		"{\"src\": \"c\", \"dest\": \"n\",\n \"body\": {\"type\": \"fly\", \"msg_id\": 2}}\n",
		msg(`"type": "<fly>", "msg_id": 3`),
		msg(`"msg_id": 4`),
		msg(`"type": "push_job", "msg_id": "x"`),
		"not json\n",
		`{"src": "c", "body": 5}` + "\n",
		"{\"a\" x\n",
		"{\"src\": \"c\",\n" + msg(`"type": "fly", "msg_id": 5`),
		`{"pad": "` + strings.Repeat("x", node.MaxMessageBytes) + "\"}\n",
		msg(`"type": "run_simulation", "msg_id": 6, "duration_ms": 100, "policies": ["none"]`),
		"{\"src\":\n",
	}, "")
	var wantOut, wantLog bytes.Buffer
	if err := node.New().Serve(strings.NewReader(in), &wantOut, &wantLog); err != nil {
		t.Fatal(err)
	}
	var gotOut, gotLog bytes.Buffer
	s := &session{sim: node.New()}
	if err := s.serve(context.Background(), strings.NewReader(in), &gotOut, &gotLog); err != nil {
		t.Fatal(err)
	}
	if gotOut.String() != wantOut.String() {
		t.Errorf("replies differ\n got %s\nwant %s", gotOut.String(), wantOut.String())
	}
	if gotLog.String() != wantLog.String() {
		t.Errorf("logs differ\n got %s\nwant %s", gotLog.String(), wantLog.String())
	}
	if strings.Count(wantOut.String(), "\n") != 7 || strings.Count(wantLog.String(), "\n") != 6 {
		t.Errorf("the input does not exercise what it should: node wrote\n%s\nand logged\n%s", wantOut.String(), wantLog.String())
	}
}

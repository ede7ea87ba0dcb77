package node

import (
	"bytes"
	"strings"
	"testing"
)

// serve runs input through a fresh node and returns stdout and stderr.
func serve(t *testing.T, input string) (string, string) {
	t.Helper()
	var out, log bytes.Buffer
	if err := New().Serve(strings.NewReader(input), &out, &log); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return out.String(), log.String()
}

// The exercise's first sample, byte for byte: its expected output is the
// init_ok line alone. run_simulation in the exercise's form (no policies)
// is answered by nothing; it leaves the cluster as its run did, which
// check_cluster_state then shows: six 10 ms jobs, all on w1 (distribution
// "first"), stolen by w2 and w3 and all run.
func TestExerciseSampleWorkStealingBalancesLoad(t *testing.T) {
	sample := `{"src":"client","dest":"cluster","body":{"type":"init","msg_id":1,"workers":["w1","w2","w3"],"jobs_to_distribute":6}}
{"src":"client","dest":"cluster","body":{"type":"run_simulation","msg_id":2,"duration_ms":1000}}
`
	out, log := serve(t, sample)
	if want := `{"src": "cluster", "dest": "client", "body": {"type": "init_ok", "in_reply_to": 1}}` + "\n"; out != want || log != "" {
		t.Fatalf("got %q, stderr %q; want exactly %q", out, log, want)
	}
	out, _ = serve(t, sample+`{"src":"client","dest":"cluster","body":{"type":"check_cluster_state","msg_id":3}}`+"\n")
	if want := `"workers": {"w1": {"queue_size": 0, "state": "idle"}, "w2": {"queue_size": 0, "state": "idle"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": true}}`; !strings.HasSuffix(strings.TrimSuffix(out, "\n"), want) {
		t.Fatalf("after the run, got %s\nwant the state to end %s", out, want)
	}
}

// run_simulation with policies, the package's own form, is answered
// with the results of each policy.
func TestRunSimulationWithPoliciesReplies(t *testing.T) {
	out, log := serve(t, `{"src":"client","dest":"cluster","body":{"type":"init","msg_id":1,"workers":["w1","w2","w3"],"jobs_to_distribute":6}}
{"src":"client","dest":"cluster","body":{"type":"run_simulation","msg_id":2,"duration_ms":1000,"policies":["one/random"]}}
`)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || log != "" {
		t.Fatalf("got %d lines, stderr %q:\n%s", len(lines), log, out)
	}
	want := `{"src": "cluster", "dest": "client", "body": {"type": "run_simulation_ok", "in_reply_to": 2, "duration_ms": 1000, ` +
		`"results": [{"policy": "one/random", "finished": true, "makespan_ms": 20, "lower_bound_ms": 20, "makespan_ratio": 1, ` +
		`"utilisation": 1, "steals": 4, "failed_steals": 0, "jobs_moved": 4, "jobs_completed": 6, ` +
		`"completed": {"w1": 2, "w2": 2, "w3": 2}, "idle_ms": {"w1": 0, "w2": 0, "w3": 0}, ` +
		`"queue_sizes": {"w1": 0, "w2": 0, "w3": 0}}], "all_idle": true}}`
	if lines[1] != want {
		t.Fatalf("line 2\n got %s\nwant %s", lines[1], want)
	}
}

// A bad run_simulation in the exercise's form is answered with its error.
func TestRunSimulationErrorAnswered(t *testing.T) {
	out, _ := serve(t, `{"src":"c","dest":"n","body":{"type":"run_simulation","msg_id":2,"duration_ms":-5}}`+"\n")
	if !strings.Contains(out, `"type": "error", "in_reply_to": 2, "code": 12`) {
		t.Fatalf("got %q, want error 12", out)
	}
}

const sample2Reply = `{"src": "cluster", "dest": "client", "body": {"type": "job_stolen", "in_reply_to": 1, "thief": "w3", "victim": "w1", "job_id": "job2", "victim_queue_size": 2}}` + "\n"

// The exercise's second sample, input exactly as the exercise prints it: one JSON
// object spread over lines, sent before any init.
func TestExerciseSampleStealFromVictimPrettyPrinted(t *testing.T) {
	out, log := serve(t, `{
  "src": "client",
  "dest": "cluster",
  "body": {
    "type": "steal_job",
    "msg_id": 1,
    "thief_worker": "w3",
    "busy_workers": [
      "w1",
      "w2"
    ]
  }
}
`)
	if out != sample2Reply || log != "" {
		t.Fatalf("got %q, stderr %q", out, log)
	}
}

func TestExerciseSampleStealFromVictimOneLine(t *testing.T) {
	out, _ := serve(t, `{"src":"client","dest":"cluster","body":{"type":"steal_job","msg_id":1,"thief_worker":"w3","busy_workers":["w1","w2"]}}`)
	if out != sample2Reply {
		t.Fatalf("got %q", out)
	}
}

func TestServeSkipsWhatItCannotAnswerAndGoesOn(t *testing.T) {
	out, log := serve(t, "not json\n"+
		`{"src": "c", "dest": "n"}`+"\n"+
		`{"src": "c", "dest": "n", "body": 5}`+"\n"+
		"{\"pad\": \""+strings.Repeat("x", MaxMessageBytes+10)+"\"}\n"+
		`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 9}}`+"\n")
	if !strings.Contains(out, `"in_reply_to": 9`) || strings.Count(out, "\n") != 1 {
		t.Fatalf("stdout %q", out)
	}
	for _, want := range []string{"line 1: not JSON", "line 2: no body", "line 3: no body", "line 4: line longer than 1048576 bytes"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
}

func TestRepliesSwapSrcAndDest(t *testing.T) {
	out, _ := serve(t, `{"src": "c7", "dest": "n3", "body": {"type": "check_cluster_state", "msg_id": 1}}`)
	if !strings.HasPrefix(out, `{"src": "n3", "dest": "c7", "body": {"type": "cluster_state_ok"`) {
		t.Fatalf("got %s", out)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, bytes.ErrTooLarge }

func TestServeReturnsWriteErrors(t *testing.T) {
	err := New().Serve(strings.NewReader(`{"body": {"type": "check_cluster_state", "msg_id": 1}}`), failingWriter{}, &bytes.Buffer{})
	if err != bytes.ErrTooLarge {
		t.Fatalf("err = %v", err)
	}
}

// A pretty-printed push_job of 1.1 MB whose payload's last element, on a
// line of its own, is a whole init. It is skipped whole, with one report,
// and the message after it is answered on the example cluster: the init is
// not executed (which would reply init_ok with in_reply_to 666 and replace
// the cluster by [evil]), nor are the payload's lines reported one by one.
func TestServeSkipsAnOverLongValueWhole(t *testing.T) {
	pad := `      "` + strings.Repeat("x", 1000) + `",` + "\n"
	msg := "{\n  \"src\": \"c\",\n  \"dest\": \"n\",\n  \"body\": {\n    \"type\": \"push_job\",\n    \"msg_id\": 1,\n    \"worker\": \"w3\",\n    \"job_id\": \"big\",\n    \"payload\": [\n" +
		strings.Repeat(pad, 1100) +
		"      {\"src\": \"c\", \"dest\": \"n\", \"body\": {\"type\": \"init\", \"msg_id\": 666, \"workers\": [\"evil\"]}}\n    ]\n  }\n}\n"
	out, log := serve(t, msg+`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 2}}`+"\n")
	want := `{"src": "n", "dest": "c", "body": {"type": "cluster_state_ok", "in_reply_to": 2, "workers": {"w1": {"queue_size": 3, "state": "busy"}, ` +
		`"w2": {"queue_size": 3, "state": "busy"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": false}}` + "\n"
	if out != want || log != "steal node: skipped line 1113: JSON value longer than 1048576 bytes\n" {
		t.Fatalf("stdout %.300q\nstderr (%d lines) %.300q", out, strings.Count(log, "\n"), log)
	}
}

// A pretty-printed push_job of 40 KB whose payload nests 9998 arrays deep,
// the innermost holding a whole init on a line of its own. The value is
// valid JSON (RFC 8259 sets no limit on nesting) though deeper than
// encoding/json takes, so it is skipped whole with one report, and the
// message after it is answered on the example cluster: the init inside it
// is not executed (which would reply init_ok with in_reply_to 666 and
// replace the cluster by [evil]), nor are its closing lines reported one
// by one.
func TestServeSkipsADeepValueWhole(t *testing.T) {
	depth := maxDepth - 2 // the envelope and the body are two levels
	msg := `{"src": "c", "dest": "n", "body": {"type": "push_job", "msg_id": 1, "worker": "w3", "job_id": "deep", "payload":` + "\n" +
		strings.Repeat("[\n", depth) +
		`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 666, "workers": ["evil"]}}` + "\n" +
		strings.Repeat("]\n", depth) + "}}\n"
	out, log := serve(t, msg+`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 2}}`+"\n")
	want := `{"src": "n", "dest": "c", "body": {"type": "cluster_state_ok", "in_reply_to": 2, "workers": {"w1": {"queue_size": 3, "state": "busy"}, ` +
		`"w2": {"queue_size": 3, "state": "busy"}, "w3": {"queue_size": 0, "state": "idle"}}, "all_idle": false}}` + "\n"
	if out != want || strings.Count(log, "\n") != 1 || !strings.Contains(log, "exceeded max depth") {
		t.Fatalf("stdout %.300q\nstderr (%d lines) %.300q", out, strings.Count(log, "\n"), log)
	}
}

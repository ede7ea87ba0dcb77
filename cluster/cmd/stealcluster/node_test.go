package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/cluster/natsserver"
	"github.com/worksteal/steal/node"
)

// natsSession is stealcluster node -nats running in this process against an
// embedded server with two workers that never steal by themselves, so
// that every move of a job is the script's.
type natsSession struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *bufio.Reader
	exit  chan int
	msgID int
	srv   *natsserver.Server
}

func newNATSSession(t *testing.T) *natsSession {
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	for _, name := range []string{"w1", "w2"} {
		nc, err := srv.Connect()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		w, err := cluster.NewWorker(nc, name, cluster.WithSlots(1), cluster.WithStealMode(cluster.StealOff), cluster.WithLease(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		register(w)
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &natsSession{t: t, in: inW, out: bufio.NewReader(outR), exit: make(chan int, 1), srv: srv}
	go func() {
		code := runNode([]string{"-nats", srv.URL(), "-lease", "1s"}, inR, outW, io.Discard)
		outW.Close()
		s.exit <- code
	}()
	return s
}

// send writes one message and returns the reply line.
func (s *natsSession) send(body string) string {
	s.t.Helper()
	s.msgID++
	return s.sendRaw(fmt.Sprintf(`{"src": "c1", "dest": "n1", "body": {"msg_id": %d, %s}}`+"\n", s.msgID, body))
}

func (s *natsSession) sendRaw(msg string) string {
	s.t.Helper()
	if _, err := io.WriteString(s.in, msg); err != nil {
		s.t.Fatal(err)
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.t.Fatalf("no reply to %s: %v", msg, err)
	}
	return line
}

// expect sends body and checks that the reply is exactly of type typ,
// in reply to it, with the fields rest.
func (s *natsSession) expect(body, typ, rest string) {
	s.t.Helper()
	got := s.send(body)
	want := fmt.Sprintf(`{"src": "n1", "dest": "c1", "body": {"type": %q, "in_reply_to": %d, %s}}`+"\n", typ, s.msgID, rest)
	if got != want {
		s.t.Errorf("request {%s}\n got %s\nwant %s", body, got, want)
	}
}

// state polls check_cluster_state until its reply body is want, for up
// to 10 s, and fails otherwise.
func (s *natsSession) state(want string) {
	s.t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = s.send(`"type": "check_cluster_state"`)
		if strings.Contains(got, want) {
			return
		}
	}
	s.t.Fatalf("cluster state never became %s; last: %s", want, got)
}

func (s *natsSession) close() {
	s.t.Helper()
	s.in.Close()
	io.Copy(io.Discard, s.out)
	select {
	case code := <-s.exit:
		if code != 0 {
			s.t.Fatalf("stealcluster node -nats exited %d", code)
		}
	case <-time.After(10 * time.Second):
		s.t.Fatal("stealcluster node -nats did not exit within 10 s of the end of its input")
	}
}

func TestNodeNATSSession(t *testing.T) {
	s := newNATSSession(t)
	idle := `"workers": {"w1": {"queue_size": 0, "state": "idle"}, "w2": {"queue_size": 0, "state": "idle"}}, "all_idle": true}`
	s.state(idle)
	// Three jobs of 30 s on w1, which runs one at a time: a runs, b and c wait.
	for _, id := range []string{"a", "b", "c"} {
		if r := s.send(`"type": "push_job", "worker": "w1", "job_id": "` + id + `", "cost_ms": 30000`); !strings.Contains(r, `"type": "push_job_ok"`) {
			t.Fatalf("push %s: %s", id, r)
		}
	}
	loaded := `"workers": {"w1": {"queue_size": 2, "state": "busy"}, "w2": {"queue_size": 0, "state": "idle"}}, "all_idle": false}`
	s.state(loaded)

	// Bad requests: each gets its error and changes nothing.
	for _, tc := range []struct{ body, want string }{
		// want: the error's code and text
		{`"type": "push_job", "worker": "w1", "job_id": "c"`, `"code": 1004, "text": "duplicate job: c (queued, running or completed on the cluster)"`},
		{`"type": "push_job", "worker": "w9", "job_id": "d"`, `"code": 1000, "text": "unknown worker: w9 (no live worker of that name on the cluster)"`},
		{`"type": "push_job", "worker": "w1", "job_id": "d e"`, `"code": 12, "text": "invalid job_id \"d e\": 1 to 200 characters from A-Z a-z 0-9 _ = -"`},
		{`"type": "push_job", "worker": "w1", "job_id": "d", "cost_ms": -1`, `"code": 12, "text": "cost_ms must be in [0, 60000] ms (how long the sleep job sleeps), not -1"`},
		{`"type": "push_job", "job_id": "d"`, `"code": 12, "text": "missing field worker"`},
		{`"type": "push_job", "worker": "", "job_id": "d"`, `"code": 12, "text": "empty field worker: it must name a worker"`},
		{`"type": "complete_job", "worker": "", "job_id": "a"`, `"code": 12, "text": "empty field worker: it must name a worker"`},
		{`"type": "steal_job", "thief_worker": "w9"`, `"code": 1000, "text": "unknown worker: w9"`},
		{`"type": "steal_job", "thief_worker": "w2", "busy_workers": ["w9"]`, `"code": 1000, "text": "unknown worker: w9"`},
		{`"type": "steal_job", "thief_worker": "w2", "busy_workers": ["w1", null]`, `"code": 12, "text": "busy_workers[1] must be a string, not null"`},
		{`"type": "steal_job", "thief_worker": "w2", "busy_workers": ["w1", 5]`, `"code": 12, "text": "busy_workers[1] must be a string, not a number"`},
		{`"type": "steal_job", "thief_worker": "w2", "busy_workers": [null, ["w1"]]`, `"code": 12, "text": "busy_workers[1] must be a string, not a list"`},
		{`"type": "steal_job", "thief_worker": "w1"`, `"code": 1002, "text": "nothing to steal: no candidate worker has a queued job"`},
		{`"type": "steal_job"`, `"code": 12, "text": "missing field thief_worker"`},
		{`"type": "pop_job", "worker": "w2"`, `"code": 10, "text": "worker w2 runs its own jobs: pop_job serves only names that no live worker of the cluster holds (this gateway then hosts a worker of that name)"`},
		{`"type": "pop_job", "worker": "w 2"`, `"code": 12, "text": "invalid worker \"w 2\": 1 to 64 characters from A-Z a-z 0-9 _ -"`},
		{`"type": "pop_job"`, `"code": 12, "text": "missing field worker"`},
		{`"type": "complete_job", "worker": "w1", "job_id": "a"`, `"code": 1003, "text": "unknown job: a is not in flight at worker w1 (jobs are in flight only at workers this gateway hosts, from pop_job to complete_job)"`},
		{`"type": "fly"`, `"code": 10, "text": "unknown message type \"fly\""`},
		// A message's fields are its type's: another message's field
		// is ignored whatever its value, as by steal node.
		{`"type": "fly", "worker": 5`, `"code": 10, "text": "unknown message type \"fly\""`},
		{`"worker": 5, "type": "steal_job", "thief_worker": "w1"`, `"code": 1002, "text": "nothing to steal: no candidate worker has a queued job"`},
		{`"type": "pop_job", "thief_worker": 5`, `"code": 12, "text": "missing field worker"`},
		// Keys are matched exactly, as by steal node: a key cased
		// otherwise is not the field, and must not act on the cluster.
		{`"type": "push_job", "WORKER": "w1", "job_id": "d"`, `"code": 12, "text": "missing field worker"`},
		{`"type": "steal_job", "Thief_Worker": "w2"`, `"code": 12, "text": "missing field thief_worker"`},
		// A string that is not UTF-8, or a lone surrogate, is refused,
		// not read with U+FFFD in its place.
		{`"type": "steal_job", "thief_worker": "w\ud800"`, `"code": 12, "text": "lone surrogate \\ud800 in body.thief_worker"`},
		{"\"type\": \"steal_job\", \"thief_worker\": \"w\xff\"", `"code": 12, "text": "invalid UTF-8 (byte 0xff) in body.thief_worker"`},
	} {
		s.expect(tc.body, "error", tc.want)
		s.state(loaded)
	}
	// A field of the wrong JSON type: malformed, in reply to the request.
	got := s.send(`"type": "push_job", "worker": 5, "job_id": "d"`)
	if want := fmt.Sprintf(`"body": {"type": "error", "in_reply_to": %d, "code": 12, "text": "worker must be a string, not a number"}`, s.msgID); !strings.Contains(got, want) {
		t.Errorf("mistyped worker: %s", got)
	}
	s.state(loaded)
	// check_cluster_state has no fields but type and msg_id.
	got = s.send(`"type": "check_cluster_state", "worker": 5, "job_id": [1]`)
	if !strings.Contains(got, `"type": "cluster_state_ok"`) {
		t.Errorf("check_cluster_state with other messages' fields mistyped: %s", got)
	}
	// A msg_id that is not an integer: the error cannot say in reply to what.
	got = s.sendRaw(`{"src": "c1", "dest": "n1", "body": {"type": "push_job", "msg_id": "x", "worker": "w1", "job_id": "d"}}` + "\n")
	if want := `{"src": "n1", "dest": "c1", "body": {"type": "error", "code": 12, "text": "msg_id must be an integer, not \"x\""}}` + "\n"; got != want {
		t.Errorf("msg_id \"x\"\n got %s\nwant %s", got, want)
	}
	s.state(loaded)
	// Nor one that does not fit in 64 bits: steal node's text.
	got = s.sendRaw(`{"src": "c1", "dest": "n1", "body": {"type": "check_cluster_state", "msg_id": 123456789012345678901234567890}}` + "\n")
	if want := `{"src": "n1", "dest": "c1", "body": {"type": "error", "code": 12, "text": "msg_id 123456789012345678901234567890 is out of range: it must be an integer in [-9223372036854775808, 9223372036854775807]"}}` + "\n"; got != want {
		t.Errorf("msg_id out of range\n got %s\nwant %s", got, want)
	}
	// A message without a body object ("Body" is not "body") gets no reply.
	got = s.sendRaw(`{"src": "c1", "dest": "n1", "Body": {"type": "check_cluster_state", "msg_id": 1}}` + "\n" + `{"src": "c1", "dest": "n1", "body": {"type": "check_cluster_state", "msg_id": 2}}` + "\n")
	if !strings.Contains(got, `"type": "cluster_state_ok", "in_reply_to": 2,`) {
		t.Errorf("a message with Body, not body, was answered, or the next one was not: %s", got)
	}
	s.state(loaded)

	// steal_job takes the back of w1's deque, c, to w2, which runs it.
	s.expect(`"type": "steal_job", "thief_worker": "w2"`, "job_stolen", `"thief": "w2", "victim": "w1", "job_id": "c", "victim_queue_size": 1`)
	s.state(`"workers": {"w1": {"queue_size": 1, "state": "busy"}, "w2": {"queue_size": 0, "state": "busy"}}, "all_idle": false}`)

	// init and run_simulation are the simulator's, byte for byte.
	sim := node.New()
	for _, body := range []string{
		`"type": "init", "workers": ["x", "y"], "jobs_to_distribute": 4`,
		`"type": "run_simulation", "duration_ms": 100, "policies": ["half/random"]`,
		`"type": "init", "workers": ["x", "x"]`,
	} {
		got := s.send(body)
		want, _ := sim.Handle(fmt.Appendf(nil, `{"src": "c1", "dest": "n1", "body": {"msg_id": %d, %s}}`, s.msgID, body))
		if got != string(want) || !json.Valid([]byte(got)) {
			t.Errorf("request {%s}\n got %s\nwant %s", body, got, want)
		}
	}
	s.close()
}

// TestNodeNATSStateAgrees: check_cluster_state never says all_idle while
// it lists a worker busy or with jobs queued. The workers were read
// before the idle check, so a job that ended between the two was listed
// busy under "all_idle": true.
func TestNodeNATSStateAgrees(t *testing.T) {
	s := newNATSSession(t)
	bad := 0
	for i := range 150 {
		if r := s.send(fmt.Sprintf(`"type": "push_job", "worker": "w%d", "job_id": "j%d", "cost_ms": 5`, 1+i%2, i)); !strings.Contains(r, `"type": "push_job_ok"`) {
			t.Fatalf("push j%d: %s", i, r)
		}
		for range 2 {
			r := s.send(`"type": "check_cluster_state"`)
			if strings.Contains(r, `"all_idle": true`) && (strings.Contains(r, `"busy"`) || !strings.Contains(r, `"w1": {"queue_size": 0`) || !strings.Contains(r, `"w2": {"queue_size": 0`)) {
				bad++
				if bad == 1 {
					t.Errorf("all idle, but not every worker listed idle: %s", r)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 300 replies said all idle with a worker listed busy", bad)
	}
	s.close()
}

// TestNodeNATSAnswersWhileTheLogIsNotRead: a peer that pipes stderr and
// never reads it must still get every reply. Each report of skipped
// input was written straight to the log, so the first one blocked the
// session for good.
func TestNodeNATSAnswersWhileTheLogIsNotRead(t *testing.T) {
	srv, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	logR, logW := io.Pipe() // never read until the end
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		code := runNode([]string{"-nats", srv.URL(), "-lease", "1s"}, inR, outW, logW)
		outW.Close()
		exit <- code
	}()
	replies := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(outR).ReadString('\n')
		replies <- line
		io.Copy(io.Discard, outR)
	}()
	io.WriteString(inW, "not json\n"+`{"src": "c1", "dest": "n1", "body": {"type": "check_cluster_state", "msg_id": 1}}`+"\n")
	select {
	case r := <-replies:
		if !strings.Contains(r, `"type": "cluster_state_ok"`) {
			t.Errorf("reply %s, want cluster_state_ok", r)
		}
	case <-time.After(10 * time.Second):
		t.Error("no reply within 10 s while the log was not read")
	}
	inW.Close()
	copied := make(chan struct{})
	go func() { // let a blocked report go, so that the session ends
		io.Copy(io.Discard, logR)
		close(copied)
	}()
	select {
	case <-exit:
	case <-time.After(20 * time.Second):
		t.Fatal("stealcluster node -nats did not exit")
	}
	logW.Close()
	<-copied
}

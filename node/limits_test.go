package node

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"
)

// names returns n worker names, each prefix followed by its number, as a
// JSON list.
func names(n int, prefix string) string {
	q := make([]string, n)
	for i := range q {
		q[i] = strconv.Quote(prefix + strconv.Itoa(i))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// digest hashes what fingerprint prints, which is too slow for a million
// jobs: every worker's deque and in-flight jobs with their costs and
// payloads, and the node's settings.
func digest(n *Node) uint64 {
	h := fnv.New64a()
	for _, s := range n.cluster.Snapshot() {
		fmt.Fprintf(h, "%q %d %d|", s.Name, len(s.Queue), len(s.InFlight))
		for _, j := range append(s.Queue, s.InFlight...) {
			h.Write([]byte(j.ID))
			h.Write([]byte(j.Payload))
			h.Write(strconv.AppendInt(nil, int64(j.Cost), 10))
		}
	}
	fmt.Fprintf(h, "%v|%v|%v|%v", n.cluster.Victims(), n.cost, n.latency, n.seed)
	return h.Sum64()
}

// refused sends body and checks that it gets error 12 with every one of
// texts and leaves the node as it was.
func refused(t *testing.T, n *Node, body string, texts ...string) {
	t.Helper()
	before := digest(n)
	refusedAsIs(t, n, body, texts...)
	if after := digest(n); after != before {
		t.Errorf("the refused request changed the node")
	}
}

// refusedAsIs is refused without the check that nothing changed, for the
// caller to make once for several requests.
func refusedAsIs(t *testing.T, n *Node, body string, texts ...string) {
	t.Helper()
	got := ask(t, n, body)
	if !strings.HasPrefix(got, `{"type": "error", "in_reply_to": 2, "code": 12, "text": `) {
		t.Fatalf("got %.300s, want error 12", got)
	}
	for _, text := range texts {
		if !strings.Contains(got, text) {
			t.Errorf("error %s lacks %q", got, text)
		}
	}
}

func TestLimitOnWorkers(t *testing.T) {
	n := New()
	refused(t, n, `{"type": "init", "msg_id": 2, "workers": `+names(MaxWorkers+1, "w")+`}`,
		"workers lists 10001 workers, over the limit of 10000 (MaxWorkers)")
	if got := ask(t, n, `{"type": "init", "msg_id": 3, "workers": `+names(MaxWorkers, "w")+`}`); !strings.Contains(got, "init_ok") {
		t.Fatalf("MaxWorkers workers refused: %s", got)
	}
}

// A cluster at MaxJobs takes no more jobs, and a simulation of all of them
// runs under one policy but not two.
func TestLimitOnJobs(t *testing.T) {
	t.Parallel() // seconds under the race detector; independent nodes
	n := New()
	refused(t, n, `{"type": "init", "msg_id": 2, "jobs_to_distribute": 1000001}`,
		"jobs_to_distribute must be in [0, 1000000] (MaxJobs), not 1000001")
	ask(t, n, fmt.Sprintf(`{"type": "init", "msg_id": 1, "jobs_to_distribute": %d}`, MaxJobs))
	// Hashing a million jobs takes seconds under the race detector; the
	// counts and settings show what either request would have changed.
	sizes := func() string {
		return fmt.Sprintf("%v %d %v %v", n.cluster.Workers(), n.cluster.Live(), n.cost, n.latency)
	}
	before := sizes()
	refusedAsIs(t, n, `{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "one more"}`,
		"the cluster holds 1000000 live jobs, the limit (MaxJobs)")
	refusedAsIs(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 1, "policies": ["none", "central"]}`,
		"1000000 queued jobs under 2 policies would simulate 2000000 jobs, over the limit of 1000000 (MaxSimulatedJobs)")
	if sizes() != before {
		t.Fatal("the refused requests changed the node")
	}
	ask(t, n, `{"type": "pop_job", "msg_id": 3, "worker": "w1"}`)
	ask(t, n, `{"type": "complete_job", "msg_id": 4, "worker": "w1", "job_id": "job0"}`)
	if got := ask(t, n, `{"type": "push_job", "msg_id": 5, "worker": "w1", "job_id": "one more"}`); !strings.Contains(got, "push_job_ok") {
		t.Fatalf("push below MaxJobs refused: %s", got)
	}
}

func TestLimitOnSimulatedJobs(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 62501, "distribution": "round_robin"}`)
	all := `["none", "central", "one", "half", "none", "central", "one", "half", "none", "central", "one", "half", "none", "central", "one", "half"]`
	refused(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 1, "policies": `+all+`}`,
		"62501 queued jobs under 16 policies would simulate 1000016 jobs, over the limit of 1000000 (MaxSimulatedJobs)")
	refused(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 1, "policies": ["none", `+all[1:]+`}`,
		"policies must list 1 to 16 policies (MaxPolicies), not 17")
}

// Ten thousand thieves with a 1 µs steal latency all go for the most
// loaded worker; the first to arrive takes half its jobs and most of the
// rest find it emptied and try again. Spreading ten thousand jobs so takes
// about thirteen million steal requests, most of them failed.
func TestLimitOnSimulatedEvents(t *testing.T) {
	t.Parallel() // seconds under the race detector; independent nodes
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 10000, "steal_latency_ms": 0.001, "workers": `+names(MaxWorkers, "w")+`}`)
	refused(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 1000, "policies": ["half/most_loaded"]}`,
		"run_simulation needs more than the 4000000 events allowed (MaxSimulatedEvents): policy half/most_loaded ran out ", " ms into the 1000 ms asked for")
	// A shorter run fits.
	if got := ask(t, n, `{"type": "run_simulation", "msg_id": 3, "duration_ms": 0.01, "policies": ["half/most_loaded"]}`); !strings.Contains(got, "run_simulation_ok") {
		t.Fatalf("short run refused: %.300s", got)
	}
}

// The reply of 16 policies for ten thousand workers with 90-character
// names would be about 50 MB; it is refused before anything runs. With
// short names it fits, and the real reply is within the bound checked.
func TestLimitOnReplyBytes(t *testing.T) {
	t.Parallel() // seconds under the race detector; independent nodes
	n := New()
	long := strings.Repeat("x", 86)
	ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 10, "workers": `+names(MaxWorkers, long)+`}`)
	all := `["none", "central", "one", "half", "none", "central", "one", "half", "none", "central", "one", "half", "none", "central", "one", "half"]`
	refused(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": 1, "policies": `+all+`}`,
		"run_simulation's reply for 10000 workers under 16 policies could take ", "bytes, over the limit of 16777216 (MaxReplyBytes)")

	ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 10, "workers": `+names(MaxWorkers, "w")+`}`)
	reply, err := n.Handle([]byte(`{"src": "c", "dest": "n", "body": {"type": "run_simulation", "msg_id": 2, "duration_ms": 1, "policies": ` + all + `}}`))
	if err != nil || !strings.Contains(string(reply), "run_simulation_ok") || len(reply) > MaxReplyBytes {
		t.Fatalf("%d-byte reply %.200s (%v)", len(reply), reply, err)
	}
}

// replyBound bounds the real reply even with the longest numbers: a year
// of idle time, costs beyond 292 years, names that need escaping.
func TestReplyBoundHolds(t *testing.T) {
	for _, init := range []string{
		`{"type": "init", "msg_id": 1, "jobs_to_distribute": 3000, "cost": {"model": "pareto", "mean_ms": 31536000000}, "workers": ["\u0001\u0002", "\"<&>\"", "w"]}`,
		`{"type": "init", "msg_id": 1, "jobs_to_distribute": 2, "workers": ["a", "b", "c", "d"]}`,
	} {
		n := New()
		ask(t, n, init)
		const policies = `["none", "central", "one/random", "one/most_loaded", "one/best_of_two", "half/random", "half/most_loaded", "half/best_of_two"]`
		bound := replyBound(n.cluster.Snapshot(), 8)
		for _, ms := range []string{"31536000000", "0.001"} {
			body := ask(t, n, `{"type": "run_simulation", "msg_id": 2, "duration_ms": `+ms+`, "policies": `+policies+`}`)
			if i := strings.Index(body, `, "results": `); i < 0 || len(body)-i > bound {
				t.Fatalf("results take %d bytes, over the bound %d:\n%.500s", len(body)-i, bound, body)
			}
		}
	}
	// The per-worker bound assumes these widths.
	if len("1000000") != len(strconv.Itoa(MaxJobs)) || len("31536000000") != len(strconv.FormatInt(MaxDuration.Milliseconds(), 10)) {
		t.Fatal("workerBytes no longer matches MaxJobs and MaxDuration")
	}
}

// The payloads of live jobs are bounded in bytes as the jobs are in number:
// a push_job whose payload would take them past the limit is refused and
// changes nothing; once a job completes, its payload's bytes are free again.
func TestLimitOnPayloadBytes(t *testing.T) {
	n := New()
	n.maxPayload = 20 // MaxPayloadBytes is 256 MiB: too much for a test
	ask(t, n, `{"type": "init", "msg_id": 1, "workers": ["w1", "w2"]}`)
	if got := ask(t, n, `{"type": "push_job", "msg_id": 3, "worker": "w1", "job_id": "a", "payload": "0123456789abcdef"}`); !strings.Contains(got, "push_job_ok") {
		t.Fatalf("push within the limit refused: %s", got)
	}
	refused(t, n, `{"type": "push_job", "msg_id": 2, "worker": "w2", "job_id": "b", "payload": [1, 2, 3]}`,
		"payloads of 18 bytes in live jobs, 7 more would pass the limit of 20 (MaxPayloadBytes)")
	if got := ask(t, n, `{"type": "push_job", "msg_id": 4, "worker": "w2", "job_id": "b", "payload": 1}`); !strings.Contains(got, "push_job_ok") {
		t.Fatalf("push up to the limit refused: %s", got)
	}
	ask(t, n, `{"type": "pop_job", "msg_id": 5, "worker": "w1"}`)
	ask(t, n, `{"type": "complete_job", "msg_id": 6, "worker": "w1", "job_id": "a"}`)
	if got := ask(t, n, `{"type": "push_job", "msg_id": 7, "worker": "w2", "job_id": "c", "payload": [1, 2, 3]}`); !strings.Contains(got, "push_job_ok") {
		t.Fatalf("push after a completion freed the bytes refused: %s", got)
	}
}

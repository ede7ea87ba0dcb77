package node

import (
	"fmt"
	"strings"
	"testing"
)

// Every error reply, each leaving the node exactly as it was.
func TestErrorRepliesChangeNothing(t *testing.T) {
	for _, tc := range []struct {
		body string
		code int
		text string
	}{
		{`{"type": "fly", "msg_id": 1}`, 10, `unknown message type \"fly\"`},
		{`{"msg_id": 1}`, 12, "missing field type"},
		{`{"type": "steal_job"}`, 12, "missing field msg_id"},
		{`{"type": "steal_job", "msg_id": 1.5}`, 12, "msg_id must be an integer, not 1.5"},
		{`{"type": "steal_job", "msg_id": "7"}`, 12, `msg_id must be an integer, not \"7\"`},
		{`{"type": "steal_job", "msg_id": 9223372036854775808}`, 12, `msg_id 9223372036854775808 is out of range: it must be an integer in [-9223372036854775808, 9223372036854775807]`},
		{`{"type": "steal_job", "msg_id": -9223372036854775809}`, 12, `msg_id -9223372036854775809 is out of range`},
		{`{"type": "steal_job", "msg_id": 1e3}`, 12, `msg_id must be an integer, not 1e3`},
		{`{"type": "steal_job", "thief_worker": 5, "msg_id": 1.5}`, 12, "thief_worker must be a string, not a number"},
		{`{"type": "steal_job", "msg_id": 1}`, 12, "missing field thief_worker"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": 3}`, 12, "thief_worker must be a string, not a number"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w9"}`, 1000, "unknown worker: w9"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w1", "w7"]}`, 1000, "unknown worker: w7"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w3"]}`, 1002, "nothing to steal"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": []}`, 1002, "nothing to steal"},
		{`{"type": "init", "msg_id": 1, "workers": ["a", "a"]}`, 1001, "duplicate worker: a"},
		{`{"type": "init", "msg_id": 1, "workers": []}`, 12, "at least one worker"},
		{`{"type": "init", "msg_id": 1, "workers": "a"}`, 12, "workers must be a list of strings, not a string"},
		{`{"type": "init", "msg_id": 1, "jobs_to_distribute": -1}`, 12, "jobs_to_distribute must be in [0, 1000000]"},
		{`{"type": "init", "msg_id": 1, "jobs_to_distribute": 2000000}`, 12, "jobs_to_distribute"},
		{`{"type": "init", "msg_id": 1, "distribution": "zigzag"}`, 12, `distribution \"zigzag\"`},
		{`{"type": "init", "msg_id": 1, "victim": "nearest"}`, 12, `victim policy \"nearest\"`},
		{`{"type": "init", "msg_id": 1, "seed": -4}`, 12, "seed must be a non-negative integer, not -4"},
		{`{"type": "init", "msg_id": 1, "jobs_to_distribute": 1.5}`, 12, "jobs_to_distribute must be an integer, not 1.5"},
		{`{"type": "init", "msg_id": 1, "cost": 5}`, 12, "cost must be an object, not a number"},
		{`{"type": "init", "msg_id": 1, "cost": {"mean_ms": "1"}}`, 12, "cost.mean_ms must be a number, not a string"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": ["w3"]}`, 12, "thief_worker must be a string, not a list"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": {}}`, 12, "thief_worker must be a string, not an object"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": true}`, 12, "thief_worker must be a string, not true or false"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w1", 1]}`, 12, "text\": \"busy_workers[1] must be a string, not a number"},
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": [null, ["w1"]]}`, 12, "busy_workers[1] must be a string, not a list"},
		{`{"type": "init", "msg_id": 1, "workers": ["a", {}]}`, 12, "workers[1] must be a string, not an object"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": 1e400}`, 12, "duration_ms 1e400 is out of range"},
		{`{"type": "init", "msg_id": 1, "jobs_to_distribute": 9223372036854775808}`, 12, "jobs_to_distribute 9223372036854775808 is out of range"},
		{`{"type": "init", "msg_id": 1, "seed": 18446744073709551616}`, 12, "seed 18446744073709551616 is out of range"},
		{`{"type": "init", "msg_id": 1, "jobs_to_distribute": 1e3}`, 12, "jobs_to_distribute must be an integer, not 1e3"},
		{`{"type": "init", "msg_id": 1, "cost": {"model": "lognormal"}}`, 12, "unknown cost model"},
		{`{"type": "init", "msg_id": 1, "cost": {"mean_ms": 0}}`, 12, "cost.mean_ms must be in (0, 31536000000] ms (MaxDuration, a year), not 0"},
		{`{"type": "init", "msg_id": 1, "cost": {"mean_ms": 1e12}}`, 12, "cost.mean_ms must be in (0, 31536000000] ms (MaxDuration, a year), not 1e+12"},
		{`{"type": "init", "msg_id": 1, "cost": {"mean_ms": -1e-9}}`, 12, "cost.mean_ms must be in (0, 31536000000] ms (MaxDuration, a year), not -1e-09"},
		{`{"type": "init", "msg_id": 1, "steal_latency_ms": -1}`, 12, "steal_latency_ms must be in"},
		{`{"type": "run_simulation", "msg_id": 1}`, 12, "missing field duration_ms"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": 0}`, 12, "duration_ms must be in (0, 31536000000] ms (MaxDuration, a year), not 0"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": -5}`, 12, "duration_ms must be in (0, 31536000000] ms (MaxDuration, a year), not -5"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": 31536000001}`, 12, "duration_ms must be in (0, 31536000000] ms (MaxDuration, a year), not 3.1536000001e+10"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": 5, "policies": []}`, 12, "policies must list 1 to 16 policies (MaxPolicies), not 0"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": 5, "policies": ["psychic"]}`, 12, `unknown policy \"psychic\"`},
		{`{"type": "push_job", "msg_id": 1, "job_id": "a"}`, 12, "missing field worker"},
		{`{"type": "push_job", "msg_id": 1, "worker": "w1"}`, 12, "missing field job_id"},
		{`{"type": "push_job", "msg_id": 1, "worker": "w1", "job_id": ""}`, 12, "empty job id"},
		{`{"type": "push_job", "msg_id": 1, "worker": "w1", "job_id": "a", "cost_ms": -1}`, 12, "cost_ms must be in"},
		{`{"type": "push_job", "msg_id": 1, "worker": "w9", "job_id": "a"}`, 1000, "unknown worker: w9"},
		{`{"type": "push_job", "msg_id": 1, "worker": "w1", "job_id": "job4"}`, 1004, "duplicate job: job4"},
		{`{"type": "pop_job", "msg_id": 1}`, 12, "missing field worker"},
		{`{"type": "pop_job", "msg_id": 1, "worker": "w0"}`, 1000, "unknown worker: w0"},
		{`{"type": "complete_job", "msg_id": 1, "worker": "w1"}`, 12, "missing field job_id"},
		{`{"type": "complete_job", "msg_id": 1, "worker": "w1", "job_id": "job0"}`, 1003, "unknown job: job0 is not in flight at w1"},
		{`{"type": "complete_job", "msg_id": 1, "worker": "x", "job_id": "job0"}`, 1000, "unknown worker: x"},
	} {
		n := New()
		before := fingerprint(n)
		got := ask(t, n, tc.body)
		prefix := fmt.Sprintf(`{"type": "error", "in_reply_to": 1, "code": %d, "text": "`, tc.code)
		hasID := strings.Contains(tc.body, `"msg_id": 1}`) || strings.Contains(tc.body, `"msg_id": 1,`)
		if hasID && !strings.HasPrefix(got, prefix) || !hasID && strings.Contains(got, "in_reply_to") ||
			!strings.Contains(got, fmt.Sprintf(`"code": %d, `, tc.code)) || !strings.Contains(got, tc.text) {
			t.Errorf("%s\n got %s\nwant code %d and text containing %q", tc.body, got, tc.code, tc.text)
		}
		if after := fingerprint(n); after != before {
			t.Errorf("%s changed the node:\n%s\n%s", tc.body, before, after)
		}
	}
}

func TestErrorWithoutMsgIDOmitsInReplyTo(t *testing.T) {
	got := ask(t, New(), `{"type": "pop_job"}`)
	if got != `{"type": "error", "code": 12, "text": "missing field msg_id"}` {
		t.Fatalf("got %s", got)
	}
}

func TestNothingToStealAnywhere(t *testing.T) {
	n := New()
	ask(t, n, `{"type": "init", "msg_id": 1}`)
	got := ask(t, n, `{"type": "pop_job", "msg_id": 2, "worker": "w1"}`)
	want := `{"type": "error", "in_reply_to": 2, "code": 1002, "text": "nothing to steal: no candidate of w1 has a queued job"}`
	if got != want {
		t.Fatalf("got %s", got)
	}
}

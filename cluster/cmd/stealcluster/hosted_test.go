package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster"
)

// TestNodeNATSHosted: pop_job under a name no live worker holds makes the
// gateway host a worker of that name. It steals from a busy worker, hands
// over the job pushed to it, records one completion per complete_job, and
// when the gateway closes with a job popped, the job goes back to the
// cluster and completes on another worker.
func TestNodeNATSHosted(t *testing.T) {
	s := newNATSSession(t)
	cl := s.client()
	s.state(`"w2": {"queue_size": 0, "state": "idle"}}, "all_idle": true}`)
	for _, id := range []string{"a", "c"} { // w1 runs a; c waits
		if r := s.send(`"type": "push_job", "worker": "w1", "job_id": "` + id + `", "cost_ms": 30000`); !strings.Contains(r, `"type": "push_job_ok"`) {
			t.Fatalf("push %s: %s", id, r)
		}
	}
	s.state(`"w1": {"queue_size": 1, "state": "busy"}`)

	// h1 is no live worker: the gateway hosts it; idle, it steals the
	// back of w1's deque.
	s.expect(`"type": "pop_job", "worker": "h1"`, "pop_job_ok",
		`"worker": "h1", "job_id": "c", "source": "stolen", "victim": "w1", "cost_ms": 30000, "queue_size": 0`)
	s.expect(`"type": "pop_job", "worker": "h1"`, "error", `"code": 1002, "text": "nothing to pop: worker h1 has job c in flight, and a hosted worker holds one job at a time; complete it first"`)
	if r := s.send(`"type": "push_job", "worker": "h1", "job_id": "p", "cost_ms": 5, "payload": {"n": 7}`); !strings.Contains(r, `"type": "push_job_ok"`) {
		t.Fatalf("push p: %s", r)
	}
	s.expect(`"type": "complete_job", "worker": "h1", "job_id": "c"`, "complete_job_ok", `"worker": "h1", "job_id": "c", "all_idle": false`)
	s.completedBy(cl, "c", "h1")
	s.expect(`"type": "complete_job", "worker": "h1", "job_id": "c"`, "error", `"code": 1003, "text": "unknown job: c is not in flight at worker h1 (jobs are in flight only at workers this gateway hosts, from pop_job to complete_job)"`)
	s.expect(`"type": "complete_job", "worker": "h2", "job_id": "p"`, "error", `"code": 1003, "text": "unknown job: p is not in flight at worker h2 (jobs are in flight only at workers this gateway hosts, from pop_job to complete_job)"`)

	// The job pushed to h1 comes off its own deque.
	s.expect(`"type": "pop_job", "worker": "h1"`, "pop_job_ok",
		`"worker": "h1", "job_id": "p", "source": "own", "cost_ms": 5, "payload": {"n":7}, "queue_size": 0`)
	s.close() // p is in flight at h1: h1 closes and gives it back
	// w1, first by name, takes p over; moved to w2, it runs.
	s.queued(cl, "w1", 1)
	res, err := cl.Steal(context.Background(), "w2", "w1", 1)
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0] != "p" {
		t.Fatalf("steal from w1 after h1 closed: %v %v, want job p", res.Jobs, err)
	}
	s.completedBy(cl, "p", "w2")
}

// client is a cluster.Client on the session's cluster.
func (s *natsSession) client() *cluster.Client {
	nc, err := s.srv.Connect()
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(nc.Close)
	cl, err := cluster.NewClient(context.Background(), nc)
	if err != nil {
		s.t.Fatal(err)
	}
	return cl
}

// completedBy checks, within 10 s, that the ledger records id's one
// completion, a success by worker.
func (s *natsSession) completedBy(cl *cluster.Client, id, worker string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := cl.Wait(ctx, id)
	switch {
	case err != nil:
		s.t.Fatalf("no completion of %s: %v", id, err)
	case r.Err != nil || r.Worker != worker:
		s.t.Fatalf("%s completed by %s with error %v, want a success by %s", id, r.Worker, r.Err, worker)
	}
}

// queued waits up to 10 s for worker's queue to reach n, with no hosted
// worker h1 left on the cluster.
func (s *natsSession) queued(cl *cluster.Client, worker string, n int) {
	s.t.Helper()
	var last []cluster.WorkerState
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		last, _ = cl.Workers(context.Background())
		if slices.ContainsFunc(last, func(st cluster.WorkerState) bool { return st.Name == worker && st.Queue == n }) &&
			!slices.ContainsFunc(last, func(st cluster.WorkerState) bool { return st.Name == "h1" }) {
			return
		}
	}
	s.t.Fatalf("%s never had %d queued jobs with h1 gone; last: %+v", worker, n, last)
}

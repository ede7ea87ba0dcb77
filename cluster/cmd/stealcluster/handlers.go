package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/node"
)

// maxCostMS bounds push_job's cost_ms: it is how long the sleep job
// sleeps.
const maxCostMS = float64(maxSleep / 1e6)

// pushJob submits a job to the named worker's deque (its back, where
// submitted work enters) and answers once the job is stored.
func (s *session) pushJob(ctx context.Context, req *request) (obj, error) {
	worker, id, err := workerAndJob(req)
	if err != nil {
		return nil, err
	}
	typ := "sleep"
	if req.JobType != nil {
		typ = *req.JobType
	}
	var cost float64
	if req.CostMS != nil {
		cost = *req.CostMS
	}
	if cost < 0 || cost > maxCostMS || math.IsNaN(cost) {
		return nil, fail(node.CodeMalformed, "cost_ms must be in [0, %v] ms (how long the sleep job sleeps), not %v", maxCostMS, cost)
	}
	var payload []byte
	if len(req.Payload) > 0 && string(req.Payload) != "null" {
		var b bytes.Buffer
		if err := json.Compact(&b, req.Payload); err != nil {
			return nil, fail(node.CodeMalformed, "payload: %v", err)
		}
		payload = b.Bytes()
	}
	err = s.client.Submit(ctx, id, typ, payload, cluster.To(worker), cluster.Cost(int64(cost*1000)))
	if err != nil {
		return nil, submitError(err, worker, id, typ)
	}
	reply := obj{kv("type", "push_job_ok"), kv("in_reply_to", *req.id), kv("worker", worker), kv("job_id", id)}
	// The job is stored: the reply says so even if the queue size cannot
	// be read, leaving queue_size out.
	if q, ok := s.queueSize(ctx, worker); ok {
		reply = append(reply, kv("queue_size", q))
	}
	return reply, nil
}

// queueSize is the worker's queue as it answered; ok is false if it did
// not.
func (s *session) queueSize(ctx context.Context, worker string) (int, bool) {
	states, _ := s.client.Workers(ctx)
	if i := slices.IndexFunc(states, func(st cluster.WorkerState) bool { return st.Name == worker }); i >= 0 {
		return states[i].Queue, true
	}
	return 0, false
}

func workerAndJob(req *request) (string, string, error) {
	if req.Worker == nil {
		return "", "", fail(node.CodeMalformed, "missing field worker")
	}
	if *req.Worker == "" {
		// cluster.To("") is refused too (ErrInvalidName); this text names the field.
		return "", "", fail(node.CodeMalformed, "empty field worker: it must name a worker")
	}
	if req.JobID == nil {
		return "", "", fail(node.CodeMalformed, "missing field job_id")
	}
	return *req.Worker, *req.JobID, nil
}

// submitError maps the cluster package's submission errors to node codes.
func submitError(err error, worker, id, typ string) error {
	switch {
	case errors.Is(err, cluster.ErrInvalidName), errors.Is(err, cluster.ErrNoWorkers):
		return fail(node.CodeUnknownWorker, "unknown worker: %s (no live worker of that name on the cluster)", worker)
	case errors.Is(err, cluster.ErrDuplicateJob):
		return fail(node.CodeDuplicateJob, "duplicate job: %s (queued, running or completed on the cluster)", id)
	case errors.Is(err, cluster.ErrInvalidID):
		return fail(node.CodeMalformed, "invalid job_id %q: 1 to %d characters from A-Z a-z 0-9 _ = -", id, cluster.MaxIDLen)
	case errors.Is(err, cluster.ErrInvalidType):
		return fail(node.CodeMalformed, "invalid job_type %q: 1 to 128 printable non-space ASCII characters", typ)
	case errors.Is(err, cluster.ErrPayloadTooLarge):
		return fail(node.CodeMalformed, "payload too large for the cluster (its maximum is 256 KiB by default)")
	}
	return err
}

// stealJob asks the most loaded candidate to give one job to the thief.
func (s *session) stealJob(ctx context.Context, req *request) (obj, error) {
	if req.ThiefWorker == nil {
		return nil, fail(node.CodeMalformed, "missing field thief_worker")
	}
	thief, busy := *req.ThiefWorker, req.BusyWorkers
	states, err := s.client.Workers(ctx)
	if err != nil {
		return nil, err
	}
	victim, err := pickVictim(states, thief, busy)
	if err != nil {
		return nil, err
	}
	res, err := s.client.Steal(ctx, thief, victim.Name, 1)
	switch {
	case errors.Is(err, cluster.ErrUnknownWorker):
		return nil, fail(node.CodeUnknownWorker, "unknown worker: %s or %s left the cluster", thief, victim.Name)
	case err != nil:
		return nil, err
	case len(res.Jobs) == 0:
		return nil, fail(node.CodeNothingToSteal, "nothing to steal: %s's queue emptied before the steal reached it", victim.Name)
	}
	return obj{kv("type", "job_stolen"), kv("in_reply_to", *req.id), kv("thief", thief), kv("victim", victim.Name),
		kv("job_id", res.Jobs[0]), kv("victim_queue_size", res.VictimQueue)}, nil
}

// pickVictim applies the node's default victim policy, most_loaded, to
// the live workers: the longest queue among the candidates (busy, or
// every other worker), ties to the first by name, never the thief.
func pickVictim(states []cluster.WorkerState, thief string, busy []string) (cluster.WorkerState, error) {
	live := map[string]cluster.WorkerState{}
	for _, st := range states {
		live[st.Name] = st
	}
	if _, ok := live[thief]; !ok {
		return cluster.WorkerState{}, fail(node.CodeUnknownWorker, "unknown worker: %s", thief)
	}
	cands := states
	if busy != nil {
		cands = nil
		for _, name := range busy {
			st, ok := live[name]
			if !ok {
				return cluster.WorkerState{}, fail(node.CodeUnknownWorker, "unknown worker: %s", name)
			}
			cands = append(cands, st)
		}
	}
	var best cluster.WorkerState
	for _, st := range cands {
		if st.Name != thief && st.Queue > best.Queue {
			best = st
		}
	}
	if best.Queue == 0 {
		return best, fail(node.CodeNothingToSteal, "nothing to steal: no candidate worker has a queued job")
	}
	return best, nil
}

// checkClusterState reports every live worker, by name, and whether the
// whole cluster is idle: cluster.Client.Idle, and every worker listed
// idle. The two are read one after the other on a live cluster, so a
// job that ends between them would have a worker listed busy under
// "all_idle": true; a reply never contradicts itself.
func (s *session) checkClusterState(ctx context.Context, req *request) (obj, error) {
	idle, err := s.client.Idle(ctx)
	if err != nil {
		return nil, err
	}
	states, err := s.client.Workers(ctx)
	if err != nil {
		return nil, err
	}
	workers := obj{}
	for _, st := range states {
		state := "idle"
		if st.Busy || st.Queue > 0 {
			state = "busy"
			idle = false
		}
		workers = append(workers, kv(st.Name, obj{kv("queue_size", st.Queue), kv("state", state)}))
	}
	return obj{kv("type", "cluster_state_ok"), kv("in_reply_to", *req.id), kv("workers", workers), kv("all_idle", idle)}, nil
}

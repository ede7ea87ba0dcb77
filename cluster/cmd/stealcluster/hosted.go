package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/node"
)

// popWait is how long pop_job waits for a hosted worker to hand over a
// job before it answers nothing to steal.
const popWait = time.Second

// hosts are the workers this gateway runs for the process on its stdin:
// cluster workers whose handler runs nothing but hands each job to pop_job
// and waits for its complete_job. Only the session's goroutine touches
// the map and the in-flight jobs.
type hosts struct {
	nc     *nats.Conn
	opts   []cluster.Option
	byName map[string]*hosted
}

// hosted is one hosted worker. It runs one job at a time (WithSlots(1)),
// so it holds at most one job out of its deque: the one offered to, or
// popped by, the process. The rest wait in its deque, where other workers
// can steal them.
type hosted struct {
	w        *cluster.Worker
	offers   chan *handoff
	inflight map[string]*handoff // by job id: popped, not yet completed
}

// handoff is a job a hosted worker's handler holds until complete_job
// closes done.
type handoff struct {
	job  *cluster.Job
	done chan struct{}
}

func newHosts(nc *nats.Conn, opts []cluster.Option) *hosts {
	return &hosts{nc: nc, opts: opts, byName: map[string]*hosted{}}
}

// get returns the hosted worker called name, starting it on first use.
// Starting fails with cluster.ErrNameInUse when a live worker of the cluster
// holds the name: that worker runs its own jobs.
func (hs *hosts) get(ctx context.Context, name string) (*hosted, error) {
	if h, ok := hs.byName[name]; ok {
		return h, nil
	}
	// StealOne: a worker that serves one job at a time takes one.
	opts := append(append([]cluster.Option{}, hs.opts...), cluster.WithSlots(1), cluster.WithStealMode(cluster.StealOne))
	w, err := cluster.NewWorker(hs.nc, name, opts...)
	if err != nil {
		return nil, err
	}
	h := &hosted{w: w, offers: make(chan *handoff), inflight: map[string]*handoff{}}
	w.HandleAll(h.handle)
	if err := w.Start(ctx); err != nil {
		return nil, err
	}
	hs.byName[name] = h
	return h, nil
}

// handle is the hosted worker's handler for every job type: it offers the
// job to pop_job and waits for its complete_job. When the gateway closes
// the worker, ctx ends and the error it returns leaves the job's record in
// place, for a surviving worker to take over: a popped job is never lost.
func (h *hosted) handle(ctx context.Context, j *cluster.Job) ([]byte, error) {
	ho := &handoff{job: j, done: make(chan struct{})}
	select {
	case h.offers <- ho:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-ho.done:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// close closes every hosted worker: jobs in flight or queued at them go
// to surviving workers of the cluster.
func (hs *hosts) close() {
	for _, h := range hs.byName {
		h.w.Close()
	}
}

// popJob gives a hosted worker its next job: the front of its own deque,
// or one its idle loop stole from another worker.
func (s *session) popJob(ctx context.Context, req *request) (obj, error) {
	if req.Worker == nil {
		return nil, fail(node.CodeMalformed, "missing field worker")
	}
	name := *req.Worker
	h, err := s.hosts.get(ctx, name)
	switch {
	case errors.Is(err, cluster.ErrInvalidName):
		return nil, fail(node.CodeMalformed, "invalid worker %q: 1 to 64 characters from A-Z a-z 0-9 _ -", name)
	case errors.Is(err, cluster.ErrNameInUse):
		return nil, fail(node.CodeNotSupported, "worker %s runs its own jobs: pop_job serves only names that no live "+
			"worker of the cluster holds (this gateway then hosts a worker of that name)", name)
	case err != nil:
		return nil, err
	}
	for id := range h.inflight {
		return nil, fail(node.CodeNothingToSteal, "nothing to pop: worker %s has job %s in flight, and a hosted "+
			"worker holds one job at a time; complete it first", name, id)
	}
	ho, err := h.next(ctx)
	if err != nil {
		return nil, err
	}
	h.inflight[ho.job.ID] = ho
	return popReply(req, h.w, ho.job), nil
}

// next waits up to popWait for the hosted worker's handler to offer a job.
func (h *hosted) next(ctx context.Context) (*handoff, error) {
	t := time.NewTimer(popWait)
	defer t.Stop()
	select {
	case ho := <-h.offers:
		return ho, nil
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, fail(node.CodeNothingToSteal, "nothing to pop: worker %s has no queued job and stole none within %v",
		h.w.Name(), popWait)
}

func popReply(req *request, w *cluster.Worker, j *cluster.Job) obj {
	reply := obj{kv("type", "pop_job_ok"), kv("in_reply_to", *req.id), kv("worker", w.Name()), kv("job_id", j.ID)}
	if j.StolenFrom != "" {
		reply = append(reply, kv("source", "stolen"), kv("victim", j.StolenFrom))
	} else {
		reply = append(reply, kv("source", "own"))
	}
	reply = append(reply, kv("cost_ms", float64(j.Cost)/1000))
	switch {
	case len(j.Payload) == 0:
	case json.Valid(j.Payload):
		reply = append(reply, kv("payload", json.RawMessage(j.Payload)))
	default: // not submitted by push_job: handed back as a string
		reply = append(reply, kv("payload", string(j.Payload)))
	}
	return append(reply, kv("queue_size", w.Queued()))
}

// completeJob retires a job in flight at a hosted worker: its handler
// returns, the worker records the completion, and the reply comes once
// the ledger holds it.
func (s *session) completeJob(ctx context.Context, req *request) (obj, error) {
	name, id, err := workerAndJob(req)
	if err != nil {
		return nil, err
	}
	h := s.hosts.byName[name]
	var ho *handoff
	if h != nil {
		ho = h.inflight[id]
	}
	if ho == nil {
		return nil, fail(node.CodeUnknownJob, "unknown job: %s is not in flight at worker %s (jobs are in flight "+
			"only at workers this gateway hosts, from pop_job to complete_job)", id, name)
	}
	delete(h.inflight, id)
	close(ho.done)
	if _, err := s.client.Wait(ctx, id); err != nil {
		return nil, err
	}
	idle, err := s.client.Idle(ctx)
	if err != nil {
		return nil, err
	}
	return obj{kv("type", "complete_job_ok"), kv("in_reply_to", *req.id), kv("worker", name), kv("job_id", id),
		kv("all_idle", idle)}, nil
}

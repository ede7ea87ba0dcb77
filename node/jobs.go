package node

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"time"

	"github.com/worksteal/steal/coord"
)

// These three messages let real worker processes use the node as their
// coordinator: a worker pushes the jobs it creates, pops its next job (its
// own, or one stolen for it), and reports completion.

// pushJob answers {"type": "push_job", "msg_id": 3, "worker": "w1",
// "job_id": "a", "payload": {...}, "cost_ms": 5} with {"type": "push_job_ok",
// "in_reply_to": 3, "worker": "w1", "job_id": "a", "queue_size": 4}. The job
// goes on the front of the worker's deque, so the worker runs it next.
// payload (any JSON) and cost_ms are optional; a job without cost_ms costs a
// draw from the node's cost model, keyed by its id. Error 1004 when the id
// is already live.
func (n *Node) pushJob(req *request) error {
	worker, err := required(req.Worker, "worker")
	if err != nil {
		return err
	}
	job, err := n.parseJob(req)
	if err != nil {
		return err
	}
	if live := n.cluster.Live(); live >= MaxJobs {
		return malformed("the cluster holds %d live jobs, the limit (MaxJobs); complete some first", live)
	}
	if held := n.cluster.PayloadBytes(); len(job.Payload) > n.maxPayload-held {
		return malformed("payloads of %d bytes in live jobs, %d more would pass the limit of %d (MaxPayloadBytes); complete some first",
			held, len(job.Payload), n.maxPayload)
	}
	if err := n.cluster.Push(worker, job); err != nil {
		return err
	}
	n.head("push_job_ok", req)
	n.enc.str("worker", worker)
	n.enc.str("job_id", job.ID)
	w, _ := n.cluster.Worker(worker) // known to exist: Push succeeded
	n.enc.int("queue_size", int64(w.QueueSize))
	return nil
}

// parseJob reads push_job's job; the payload is stored compact so that it
// can be echoed inside a one-line reply.
func (n *Node) parseJob(req *request) (coord.Job, error) {
	id, err := required(req.JobID, "job_id")
	if err != nil {
		return coord.Job{}, err
	}
	cost, err := millis(req.CostMS, "cost_ms", n.jobCost(id))
	if err != nil {
		return coord.Job{}, err
	}
	job := coord.Job{ID: id, Cost: cost}
	if len(req.Payload) > 0 && string(req.Payload) != "null" {
		var b bytes.Buffer
		if err := json.Compact(&b, req.Payload); err != nil {
			return coord.Job{}, malformed("payload: %v", err)
		}
		job.Payload = b.String()
	}
	return job, nil
}

// popJob answers {"type": "pop_job", "msg_id": 4, "worker": "w3"} with
// {"type": "pop_job_ok", "in_reply_to": 4, "worker": "w3", "job_id": "job5",
// "source": "stolen", "victim": "w2", "cost_ms": 10, "queue_size": 0} and,
// when the job has one, "payload". source is "own" when the job came off
// the front of the worker's own deque ("victim" is then absent) and
// "stolen" when the deque was empty and the job was stolen by the victim
// policy. The job is now in flight at the worker. Error 1002 when no worker
// has a queued job.
func (n *Node) popJob(req *request) error {
	worker, err := required(req.Worker, "worker")
	if err != nil {
		return err
	}
	t, err := n.cluster.Pop(worker)
	if err != nil {
		return err
	}
	n.head("pop_job_ok", req)
	n.enc.str("worker", worker)
	n.enc.str("job_id", t.Job.ID)
	if t.Stolen() {
		n.enc.str("source", "stolen")
		n.enc.str("victim", t.Victim)
	} else {
		n.enc.str("source", "own")
	}
	n.enc.float("cost_ms", toMillis(n.costOf(t.Job)))
	if t.Job.Payload != "" {
		n.enc.raw("payload", t.Job.Payload)
	}
	n.enc.int("queue_size", int64(t.QueueSize))
	return nil
}

// completeJob answers {"type": "complete_job", "msg_id": 5, "worker": "w3",
// "job_id": "job5"} with {"type": "complete_job_ok", "in_reply_to": 5,
// "worker": "w3", "job_id": "job5", "all_idle": false}. Error 1003 when the
// job is not in flight at that worker.
func (n *Node) completeJob(req *request) error {
	worker, err := required(req.Worker, "worker")
	if err != nil {
		return err
	}
	id, err := required(req.JobID, "job_id")
	if err != nil {
		return err
	}
	if err := n.cluster.Complete(worker, id); err != nil {
		return err
	}
	n.head("complete_job_ok", req)
	n.enc.str("worker", worker)
	n.enc.str("job_id", id)
	n.enc.bool("all_idle", n.cluster.AllIdle())
	return nil
}

// jobCost is the cost of a job that came without one: a draw from the cost
// model keyed by (seed, id), so the same job always costs the same.
func (n *Node) jobCost(id string) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(id))
	return n.cost.Draw(h.Sum64() ^ n.seed)
}

// costOf is a job's cost, drawn for jobs created without one (the example
// cluster's).
func (n *Node) costOf(j coord.Job) time.Duration {
	if j.Cost > 0 {
		return j.Cost
	}
	return n.jobCost(j.ID)
}

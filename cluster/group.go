package cluster

import (
	"context"
	"errors"
	"sync"
)

// Group commit. A worker's slots finish jobs at the same time (a slot is
// handed on while the last job's outcome is written, see run.go), and each
// completion is an atomic batch of two messages with an answer of its own.
// The completions of jobs with records and no pending children (the whole
// batch is "delete q.<owner>.<id> at its revision, create d.<id>") that
// are written at the same moment go in one atomic batch instead: one
// answer and one pass through the stream's batch machinery for all.
//
// The first writer to arrive leads: it takes every completion queued, up
// to maxGroupJobs, commits them as one batch, hands each its answer, and
// goes on while more are queued, at most groupRounds times, before it
// hands the lead to the next one queued. Every check in the batch is the
// same as in a completion alone, so a batch is applied exactly when every
// one of its completions would be. When the servers refuse a batch (one
// record fenced or gone, one completion already recorded: errConflict or
// errDupMsg), nothing of it was applied, and its halves are committed on
// their own, which sorts out whose check failed (commitGroup). A
// transient error is retried by the batch's commit, as a single
// completion's is.
const (
	maxGroupJobs = 100 // 200 messages, well under the servers' 1000 a batch
	maxGroupOps  = 2 * maxGroupJobs
	groupRounds  = 8
)

// groupSize is how many completions from the front of queue the next
// batch takes: up to maxGroupJobs, and up to maxGroupOps messages (a
// bundle's completion has one a job), at least one.
func groupSize(queue []*groupReq) int {
	n, ops := 0, 0
	for n < len(queue) && n < maxGroupJobs {
		ops += len(queue[n].ops)
		if n > 0 && ops > maxGroupOps {
			break
		}
		n++
	}
	return n
}

// groupReq is one completion waiting in the group.
type groupReq struct {
	ops  []op
	done chan error // the batch's answer, or errLead
}

// errLead hands the lead of the group to the receiving writer.
var errLead = errors.New("cluster: lead the group")

// group is a worker's queue of completions to commit together.
type group struct {
	mu       sync.Mutex
	queue    []*groupReq
	leading  bool
	handoffs int // leads handed on after groupRounds (read by tests)
}

// commitGrouped commits ops, one completion, with the others written at
// the same moment, and returns its answer as the store's commit would.
// Any goroutine may call it.
func (w *Worker) commitGrouped(ops []op) error {
	g := &w.group
	r := &groupReq{ops: ops, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, r)
	if g.leading {
		g.mu.Unlock()
		err := <-r.done
		if err != errLead {
			return err
		}
		g.mu.Lock() // r is still at the queue's front
	}
	g.leading = true
	// r is at the queue's front, or queued before anything the lead
	// takes later: the first round answers it.
	for round := 0; len(g.queue) > 0; round++ {
		if round == groupRounds {
			next := g.queue[0]
			g.handoffs++
			g.mu.Unlock()
			next.done <- errLead // it stays queued and leads from here
			return <-r.done
		}
		n := groupSize(g.queue)
		batch := g.queue[:n:n]
		g.queue = g.queue[n:]
		g.mu.Unlock()
		w.commitGroup(batch)
		g.mu.Lock()
	}
	g.leading = false
	g.mu.Unlock()
	return <-r.done
}

// commitGroup commits the completions of batch in one atomic batch and
// hands each its answer. When the servers refuse the batch (a check
// failed, so nothing of it was applied), each half is committed on its
// own, down to single completions, which get the refusal: one refused
// completion among n costs about 2·log2(n) batches more, not n.
func (w *Worker) commitGroup(batch []*groupReq) {
	var all []op
	for _, r := range batch {
		all = append(all, r.ops...)
	}
	_, err := w.st.commit(context.Background(), all)
	if len(batch) > 1 && refused(err) {
		w.commitGroup(batch[:len(batch)/2])
		w.commitGroup(batch[len(batch)/2:])
		return
	}
	for _, r := range batch {
		r.done <- err
	}
}

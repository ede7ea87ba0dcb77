package dist

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

type stealRequest struct {
	Thief string `json:"thief"`
	Max   int    `json:"max"` // 0: half
}

type stealReply struct {
	Jobs  []stolenJob `json:"jobs"`
	Queue int         `json:"queue"` // the victim's queue after the steal
}

type stolenJob struct {
	Rev uint64          `json:"rev"`
	Rec json.RawMessage `json:"rec"`
}

// maxStealWait bounds the wait for a victim's answer: the thief's
// dispatcher waits meanwhile, and a victim that does not answer quickly
// (paused, overloaded) is a poor victim anyway.
const maxStealWait = 500 * time.Millisecond

// maxStealBytes bounds a steal reply (NATS messages are 1 MiB by default).
const maxStealBytes = 600 << 10

// onSteal answers a thief. The victim decides: it pops up to half of its
// queue (or one) from the back, moves the records to the thief in one
// atomic batch, each delete a compare-and-swap on the record's revision,
// and replies with the jobs. If the batch is refused, some record is no
// longer this worker's (it was taken over while this worker was paused):
// the jobs still ours go back, and the thief gets nothing.
func (w *Worker) onSteal(m *nats.Msg) {
	var req stealRequest
	if json.Unmarshal(m.Data, &req) != nil || !validName(req.Thief) || req.Thief == w.name {
		m.Respond([]byte(`{"jobs":[]}`))
		return
	}
	taken := w.takeBack(req.Max)
	reply := stealReply{Jobs: []stolenJob{}}
	if len(taken) > 0 {
		reply.Jobs = w.giveAway(taken, req.Thief)
	}
	w.mu.Lock()
	reply.Queue = w.queueLocked()
	w.mu.Unlock()
	b, _ := json.Marshal(reply)
	m.Respond(b)
	poke(w.kick)
}

// takeBack pops the jobs to give from the back of the deque.
func (w *Worker) takeBack(max int) []*entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		return nil
	}
	n := w.dq.Len()
	k := n - n/2
	if max > 0 {
		k = min(k, max)
	}
	k = min(k, maxStealJobs)
	var taken, bad []*entry
	size := 0
	for len(taken) < k && size < maxStealBytes {
		e, ok := w.dq.PopBack()
		if !ok {
			break
		}
		switch {
		case !w.liveLocked(e):
		case e.rec == nil:
			bad = append(bad, e) // undecodable: recorded here, not moved
		default:
			taken = append(taken, e)
			size += len(e.rec.Payload) + 256
		}
	}
	for _, e := range bad {
		w.dq.PushFront(e)
	}
	w.moving += len(taken)
	return taken
}

// giveAway commits the move of taken to thief and returns the jobs as the
// thief will hold them; on failure it puts back what is still ours.
func (w *Worker) giveAway(taken []*entry, thief string) []stolenJob {
	ops := make([]op, 0, 2*len(taken))
	recs := make([][]byte, len(taken))
	for i, e := range taken {
		r := *e.rec
		r.Hops++
		r.From = w.name
		recs[i], _ = json.Marshal(&r)
		ops = append(ops, op{key: qKey(w.name, e.id), del: true, check: true, expect: e.rev},
			op{key: qKey(thief, e.id), value: recs[i]})
	}
	revs, err := w.st.commit(w.ctx, ops)
	if err != nil {
		// A conflict, or an outcome unknown after retries (the batch may
		// have been applied): only records still ours come back.
		w.putBack(taken)
		return []stolenJob{}
	}
	w.mu.Lock()
	for _, e := range taken {
		w.retireLocked(e.id, e.rev)
	}
	w.moving -= len(taken)
	w.mu.Unlock()
	w.stats.given.Add(int64(len(taken)))
	out := make([]stolenJob, len(taken))
	for i := range taken {
		out[i] = stolenJob{Rev: revs[2*i+1], Rec: recs[i]}
	}
	return out
}

// putBack returns popped jobs to the back of the deque after a failed
// move: each record is checked, only those still at their revision come
// back.
func (w *Worker) putBack(taken []*entry) {
	keep := make([]bool, len(taken))
	for i, e := range taken {
		keep[i] = w.stillOurs(e)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.moving -= len(taken)
	for i := len(taken) - 1; i >= 0; i-- {
		e := taken[i]
		switch {
		case keep[i] && w.liveLocked(e):
			w.dq.PushBack(e)
		default:
			w.retireLocked(e.id, e.rev)
		}
	}
}

// stillOurs reports whether e's record is still at e's revision under this
// worker's name. When the servers cannot tell (unreachable for the whole
// retry window) it reports true: keeping a job that moved costs a run whose
// completion is refused, dropping one that did not would strand it.
func (w *Worker) stillOurs(e *entry) bool {
	kv, err := w.st.get(context.Background(), qKey(w.name, e.id))
	switch {
	case err == nil:
		return kv.Revision() == e.rev
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return false
	}
	return true
}

// trySteal asks one victim for work; it reports whether jobs came.
func (w *Worker) trySteal() bool {
	victim := w.members.pick(w.name)
	if victim == "" {
		return false
	}
	req := stealRequest{Thief: w.name}
	if w.cfg.steal == StealOne {
		req.Max = 1
	}
	b, _ := json.Marshal(req)
	m, err := w.nc.Request(w.cfg.subject("w."+victim+".steal"), b, min(w.cfg.timeout, maxStealWait))
	if err != nil {
		// A lost reply loses nothing: moved records are under our name,
		// and the watch of our own records picks them up. The victim is
		// skipped until its next heartbeat.
		w.members.setQueue(victim, 0)
		return false
	}
	var rep stealReply
	if json.Unmarshal(m.Data, &rep) != nil || len(rep.Jobs) == 0 {
		w.members.setQueue(victim, rep.Queue)
		return false
	}
	w.mu.Lock()
	for i := len(rep.Jobs) - 1; i >= 0; i-- {
		j := rep.Jobs[i]
		var r record
		if json.Unmarshal(j.Rec, &r) != nil || !validID(r.ID) {
			continue // the watch of our own records delivers it
		}
		w.adoptLocked(decodeEntry(r.ID, j.Rev, j.Rec), true)
	}
	w.mu.Unlock()
	w.members.setQueue(victim, rep.Queue)
	w.stats.stolen.Add(int64(len(rep.Jobs)))
	return true
}

package cluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

type stealRequest struct {
	Thief string `json:"thief"`
	Max   int    `json:"max"` // 0: half
	// Loan names the loan of in-memory jobs the victim may make (see
	// loan.go); without it the victim lends none.
	Loan string `json:"loan,omitempty"`
}

type stealReply struct {
	Jobs  []stolenJob `json:"jobs"`
	Queue int         `json:"queue"` // the victim's queue after the steal
	// Late lists jobs moved whose revisions the victim does not know (its
	// answer from the servers was lost): the thief's watch delivers them.
	Late []string `json:"late,omitempty"`
	// Loan and Lent: in-memory jobs lent to the thief, under the loan
	// id of the request.
	Loan string    `json:"loan,omitempty"`
	Lent []lentJob `json:"lent,omitempty"`
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
	taken = w.lend(taken, &req, &reply)
	if len(taken) > 0 {
		reply.Jobs, reply.Late = w.giveAway(taken, req.Thief)
	}
	w.mu.Lock()
	reply.Queue = w.queueLocked()
	w.mu.Unlock()
	b, _ := json.Marshal(reply)
	m.Respond(b)
	poke(w.kick)
}

// taken is a job popped for a thief, with what fences its move, read
// under w.mu: its record's revision, or for a job without a record (see
// local.go) the key and revision of its anchor's record.
type taken struct {
	e      *entry
	rev    uint64
	guard  string
	grev   uint64
	anchor *entry // pinned while the steal is in flight
	verify bool   // the job is to be checked against the ledger before it runs
}

// lend makes a loan of taken into reply (see loan.go): the in-memory
// jobs and those with records, which stay under their owner's name. It
// returns the jobs to move instead: jobs held here without a record
// (local spawn), and this worker's own records when the thief gave no
// loan id (Client.Steal, or an older version); its in-memory and
// borrowed jobs then go back to the deque.
func (w *Worker) lend(taken []taken, req *stealRequest, reply *stealReply) []taken {
	loanable := req.Loan != "" && validID(req.Loan)
	var lent []*entry
	rest := taken[:0]
	w.mu.Lock()
	defer w.mu.Unlock()
	if loanable && w.loans[req.Loan] != nil {
		loanable = false // a thief names each loan once
	}
	for _, t := range taken {
		switch {
		case loanable && (t.e.mem || t.e.rev != 0):
			lent = append(lent, t.e)
		case t.e.mem || t.e.borrow != nil:
			// Held in memory, or borrowed with its record under
			// the lender's name: there is no record of ours to move.
			w.moving--
			w.dq.PushBack(t.e)
			w.signal() // back in the deque: the dispatcher may run it
		default:
			rest = append(rest, t)
		}
	}
	if len(lent) > 0 {
		w.moving -= len(lent)
		reply.Loan, reply.Lent = req.Loan, w.lendLocked(req.Loan, req.Thief, lent)
	}
	return rest
}

// takeBack pops the jobs to give from the back of the deque. Jobs without
// a record are claimed for the steal and their anchors pinned; they are
// skipped while another batch claims them or their anchor (their parent's
// completion is writing their records).
func (w *Worker) takeBack(max int) []taken {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		return nil
	}
	n := w.dq.Len()
	k := n - n/2 // half, as an idle worker takes
	if max > 0 {
		k = min(n, max)
	}
	k = min(k, maxStealJobs)
	var out []taken
	var skip []*entry
	size := 0
	for len(out) < k && size < maxStealBytes {
		e, ok := w.dq.PopBack()
		if !ok {
			break
		}
		switch {
		case !w.liveLocked(e):
		case e.rec == nil || !stealableLocked(e):
			skip = append(skip, e) // undecodable (recorded here) or claimed: not moved
		default:
			// A reply carries the payload base64 encoded: counted
			// so, and before the job is taken, so that the reply
			// stays below the servers' message limit (1 MiB).
			sz := base64.StdEncoding.EncodedLen(len(e.rec.Payload)) + 512
			if len(out) > 0 && size+sz > maxStealBytes {
				w.dq.PushBack(e)
				k = len(out) // the reply is full
				continue
			}
			t := taken{e: e, rev: e.rev, verify: e.verify}
			if e.rev == 0 && !e.mem {
				e.flying = flightSteal
				t.guard, t.grev = w.guardLocked(e)
				if t.anchor = anchorLocked(e); t.anchor != nil {
					t.anchor.pins++
				}
			}
			out = append(out, t)
			size += sz
		}
	}
	for _, e := range skip {
		w.dq.PushFront(e)
	}
	if len(skip) > 0 {
		w.signal()
	}
	w.moving += len(out)
	return out
}

// giveAway commits the move of jobs to thief and returns them as the
// thief will hold them; on failure it puts back what is still ours. A job
// with a record moves by a delete (conditional on its revision) and a put;
// one without gets its first record, under the thief's name, conditional
// on its anchor's record (a zombie victim's steal is refused).
//
// Every put carries a message id of this steal, and the puts go first.
// The anchor's check does not notice that a job without a record was
// written, so a retry of a batch whose first attempt was applied (its
// answer lost) would pass it and write the job again, at a new revision,
// which the thief would take for a second job of the same id. The servers
// refuse that retry as a duplicate instead, at its first message, before
// any revision check, and the move counts as done: the jobs are returned
// in late, without revisions, and the thief learns of them from its watch.
func (w *Worker) giveAway(jobs []taken, thief string) (moved []stolenJob, late []string) {
	ops := make([]op, 0, 2*len(jobs))
	recs := make([][]byte, len(jobs))
	steal := nuid.Next()
	for i, t := range jobs {
		r := *t.e.rec
		r.Hops++
		r.From = w.name
		r.Check = t.verify // the thief checks the ledger before it runs it
		recs[i], _ = json.Marshal(&r)
		o := op{key: qKey(thief, t.e.id), value: recs[i], msgID: steal + "." + strconv.Itoa(i)}
		if t.rev == 0 {
			o.guard, o.check, o.expect = t.guard, t.guard != "", t.grev
		}
		ops = append(ops, o) // ops[i] is job i's put
	}
	for _, t := range jobs {
		if t.rev != 0 {
			ops = append(ops, op{key: qKey(w.name, t.e.id), del: true, check: true, expect: t.rev})
		}
	}
	revs, err := w.st.commitWithin(w.ctx, ops, w.stealWindow(jobs))
	applied := errors.Is(err, errDupMsg) // by an attempt whose answer was lost
	if err != nil && !applied {
		// A conflict, or an outcome unknown after retries (the batch may
		// have been applied): only records still ours come back.
		w.putBack(jobs)
		return []stolenJob{}, nil
	}
	w.mu.Lock()
	for _, t := range jobs {
		t.e.gone = true
		unclaimLocked(t)
		w.retireLocked(t.e.id, t.rev)
	}
	w.moving -= len(jobs)
	w.flights.Broadcast()
	w.mu.Unlock()
	w.stats.given.Add(int64(len(jobs)))
	if applied {
		for _, t := range jobs {
			late = append(late, t.e.id)
		}
		return []stolenJob{}, late
	}
	moved = make([]stolenJob, len(jobs))
	for i := range jobs {
		moved[i] = stolenJob{Rev: revs[i], Rec: recs[i]}
	}
	return moved, nil
}

// stealWindow is how long a steal batch is retried through transient
// errors. A job with a record is settled by reading the record when the
// outcome is unknown (putBack); a job without one has nothing to read, and
// only the servers' answer to the batch tells whether it moved: refused as
// a duplicate once an attempt was applied. That answer holds while the
// servers remember the batch's message ids, for their duplicate window (2
// minutes by default), so the batch is retried for half of it, and at
// least as long as any other write.
func (w *Worker) stealWindow(jobs []taken) time.Duration {
	for _, t := range jobs {
		if t.rev == 0 {
			return max(w.st.cfg.retry, w.st.dedup/2)
		}
	}
	return w.st.cfg.retry
}

// putBack returns popped jobs to the back of the deque after a failed
// move: each record is checked, only those still at their revision come
// back. A job without a record stays ours unless the worker fenced itself.
// Its move was refused (its anchor was taken over: the worker is fenced),
// or the servers did not answer the batch through its window (see
// stealWindow), or the worker is closing: only then may the move have been
// applied, the thief run the job too, and one of the two completions be
// refused.
func (w *Worker) putBack(jobs []taken) {
	keep := make([]bool, len(jobs))
	for i, t := range jobs {
		keep[i] = t.rev == 0 || w.stillOurs(qKey(w.name, t.e.id), t.rev)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.moving -= len(jobs)
	for i := len(jobs) - 1; i >= 0; i-- {
		e := jobs[i].e
		unclaimLocked(jobs[i])
		switch {
		case keep[i] && w.liveLocked(e):
			w.dq.PushBack(e)
		default:
			w.retireLocked(e.id, jobs[i].rev)
		}
	}
	w.flights.Broadcast()
	w.signal()
}

// stealableLocked: a job without a record can be moved only while no
// other batch claims it or its anchor.
func stealableLocked(e *entry) bool {
	if e.rev != 0 || e.mem {
		return true
	}
	a := anchorLocked(e)
	return e.flying == flightNone && (a == nil || a.flying == flightNone)
}

// unclaimLocked ends a steal's claim on t (broadcast by the caller).
func unclaimLocked(t taken) {
	if t.rev == 0 {
		t.e.flying = flightNone
	}
	if t.anchor != nil {
		t.anchor.pins--
	}
}

// stillOurs reports whether the record at key (under this worker's name)
// is still at rev. When the servers cannot tell (unreachable for the whole
// retry window) it reports true: keeping a job that moved costs a run whose
// completion is refused, dropping one that did not would strand it.
func (w *Worker) stillOurs(key string, rev uint64) bool {
	return w.stillOursCtx(context.Background(), key, rev)
}

// stillOursCtx is stillOurs, giving up (true) when ctx ends.
func (w *Worker) stillOursCtx(ctx context.Context, key string, rev uint64) bool {
	kv, err := w.st.get(ctx, key)
	switch {
	case err == nil:
		return kv.Revision() == rev
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
	req := stealRequest{Thief: w.name, Loan: newLoanID()}
	if w.cfg.moveOnly {
		req.Loan = ""
	}
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
	if json.Unmarshal(m.Data, &rep) != nil || len(rep.Jobs)+len(rep.Late)+len(rep.Lent) == 0 {
		w.members.setQueue(victim, rep.Queue)
		return false
	}
	if rep.Loan == req.Loan && len(rep.Lent) > 0 {
		w.stats.stolen.Add(int64(w.borrowLoan(victim, rep.Loan, rep.Lent)))
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
	w.stats.stolen.Add(int64(len(rep.Jobs) + len(rep.Late))) // the watch delivers the late ones
	return true
}

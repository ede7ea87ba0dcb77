package cluster

import (
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
	"github.com/worksteal/steal"
)

// In-memory subtrees (WithSpawnRecords(false)).
//
// A job spawned in this mode is an entry with mem set: no record, no
// ledger entry, no write at all. Each job counts what is still open under
// it (open): its own run, plus each child not finished. A child is
// finished when its run has returned and its own children are finished;
// finishing it closes one count of its parent (up). When a job with a
// record finishes, its completion is written, as for any job: the root's
// completion is recorded only once its whole subtree has run.
//
// A thief does not move such jobs: it borrows them. The victim pops them
// from the back of its deque as for any steal, keeps them in a loan (id
// chosen by the thief, in the steal request), and sends their
// descriptions in the reply, over core NATS only. The thief runs them as
// roots of subtrees of its own (borrowed) and, once every job of the loan
// has finished, publishes the loan's return to the lender, which finishes
// the jobs it lent. Nothing of a loan reaches JetStream.
//
// Failures. A loan is in the lender's memory only; the root's record is
// the durable fact. The lender audits loans older than a lease: it asks
// the thief which loans it still holds (or returned lately), and takes
// back the ones it does not hold, or all of them when no thief answers
// under that name and its lease is gone. Taken back, a loan's jobs are
// queued again at the lender and run again: children run at least once.
// A return that comes after its loan was taken back names an unknown
// loan and is dropped. A lender that dies loses its loans with its
// memory: its roots are taken over and run again from the start, and the
// thieves' returns go nowhere. A lender that was paused past its lease
// and resumes may finish a root its new owner runs too; its completion is
// refused by the record's revision, as for any job.

// loan is a set of jobs lent to a thief, held by the lender.
type loan struct {
	id    string
	thief string
	jobs  []*entry
	at    time.Time
}

// borrowed is a loan as the thief holds it: left counts its jobs not
// finished.
type borrowed struct {
	id     string
	lender string
	left   int
	abort  bool // some job did not run to the end (closing): the lender runs them again
}

// lentJob is one job of a loan, as the reply carries it. A job with a
// record stays under its owner's name at Rev: the thief's completion
// deletes it there, conditional on Rev, as the owner's would.
type lentJob struct {
	Rec   json.RawMessage `json:"rec"`
	Owner string          `json:"owner,omitempty"`
	Rev   uint64          `json:"rev,omitempty"`
}

// loanReturn is the thief's word that a loan's jobs finished; with Abort,
// that they did not all run and the lender must queue them again.
type loanReturn struct {
	Loan  string `json:"loan"`
	Thief string `json:"thief"`
	Abort bool   `json:"abort,omitempty"`
}

// loanAudit asks a thief which of a lender's loans it holds; the answer
// lists them.
type loanAudit struct {
	Lender string   `json:"lender"`
	Loans  []string `json:"loans"`
}

// maxPayloadLimit is the largest payload any worker admits
// (WithMaxPayload).
const maxPayloadLimit = 512 << 10

// memMode reports whether the jobs e's run spawns live in memory.
func (w *Worker) memMode(e *entry) bool { return e.mem || !w.cfg.spawnRecords }

// memChild is what a job spawned in memory needs, made in one
// allocation: its entry, its record and the Job its handler sees (see
// execute). A spawn-heavy tree makes one per job, and the allocations and
// the collections they cause are a good part of what a child costs beyond
// its handler's work.
type memChild struct {
	e   entry
	rec record
	job Job
}

// spawnMem queues c, whose record is filled in, as an in-memory child of
// parent at the front of the deque.
func (w *Worker) spawnMem(parent *entry, c *memChild) error {
	e := &c.e
	*e = entry{id: c.rec.ID, rec: &c.rec, job: &c.job, mem: true, up: parent, open: 1}
	w.mu.Lock()
	defer w.mu.Unlock()
	if parent.open == 0 {
		// A *Job kept past its handler's return, whose run and subtree
		// have finished: its completion (or its loan's return) is
		// written or being written, and a child queued now would finish
		// it a second time and run outside the tree that completion
		// stood for. Refused as Spawn with records refuses it.
		return ErrFenced
	}
	parent.open++
	w.enterLocked()
	w.dq.PushFront(e)
	w.queuedLocked()
	return nil
}

// queuedLocked tells the dispatcher of a job queued while a slot is free,
// and the hint loop each time the queue reaches a power of two, so that
// thieves hear of a growing queue without a wakeup per job.
func (w *Worker) queuedLocked() {
	if w.running < w.cfg.slots {
		w.signal()
	}
	if n := w.dq.Len(); n&(n-1) == 0 {
		poke(w.kick)
	}
}

// runMem runs e, a job whose spawned jobs live in memory, and finishes
// it once its subtree has. It returns the next job for its slot, or nil
// when it gave the slot back.
//
// A handler that calls runtime.Goexit fails its job, as in runRecord: a
// job held in memory counts as a failed child, and its subtree closes as
// for any run that returned.
func (w *Worker) runMem(e *entry, sw *steal.Worker) *entry {
	if !e.mem && w.alreadyDone(e) {
		w.skipDone(e)
		return nil
	}
	var out *outcome // the completion to write once the subtree finished
	ok, failed := false, false
	returned := false
	defer ifGoexit(&returned, func() {
		w.goexitOutcome(e, out)
		w.ranMem(e, out, true, true, false) // a job held in memory: a failed child
	})
	if e.mem {
		var o outcome // nothing records a job held in memory: o stays on the stack
		ok = w.execute(e, sw, &o)
		failed = o.Code != ""
	} else {
		w.mu.Lock()
		e.open = 1 // its run
		w.mu.Unlock()
		out = new(outcome)
		if ok = w.execute(e, sw, out); !ok {
			out = nil
		}
	}
	returned = true
	return w.ranMem(e, out, ok, failed, true)
}

// ranMem ends the run of e (its outcome out, for a job with a record;
// ok false: none to record; failed: a job held in memory failed) and
// returns the next job for its slot, or nil when it gave the slot back;
// goon false gives it back.
func (w *Worker) ranMem(e *entry, out *outcome, ok, failed, goon bool) *entry {
	w.mu.Lock()
	w.held++
	e.ranMem = true
	e.out = out
	switch {
	case !ok:
		e.abort = true
	case e.mem:
		w.stats.memRuns.Add(1)
		if failed {
			w.stats.childFailed.Add(1)
		}
	}
	ready := w.closeLocked(e)
	next := w.nextLocked(goon)
	w.mu.Unlock()
	w.finish(ready)
	if next == nil {
		poke(w.kick)
		w.signal()
	}
	return next
}

// nextLocked pops the next job for the slot the caller holds, or gives
// the slot back (nil); always when !goon (a run that runtime.Goexit
// ends: the next job cannot run on its goroutine).
func (w *Worker) nextLocked(goon bool) *entry {
	if goon && !w.closing {
		if e := w.popFrontLocked(); e != nil {
			if !e.mem && e.borrow == nil {
				w.runs[e.id] = e
			}
			return e
		}
	}
	w.running--
	return nil
}

// closeLocked closes one open count of e (its run, or a child's) and of
// each ancestor whose last count that was. It returns the job it stopped
// at when that one is finished and needs a write or a message: a job with
// a record (its completion), or a borrowed job (its loan's return).
func (w *Worker) closeLocked(e *entry) *entry {
	for e != nil {
		e.open--
		if e.open > 0 {
			return nil
		}
		if e.ranMem {
			w.held--
			e.ranMem = false
		}
		if e.up == nil {
			if e.rev != 0 && !e.mem {
				w.completing++ // its completion is to be written (finish)
			}
			return e
		}
		e.up.abort = e.up.abort || e.abort
		e = e.up
	}
	return nil
}

// finish acts on a job whose subtree finished (see closeLocked).
func (w *Worker) finish(e *entry) { w.finishCounted(e, false) }

// needsWrite reports whether finish writes e's completion.
func needsWrite(e *entry) bool { return e.rev != 0 && !e.mem }

// finishCounted is finish; counted: the caller added e's write to
// finishing already (see onReturn).
func (w *Worker) finishCounted(e *entry, counted bool) {
	if e == nil {
		return
	}
	if !needsWrite(e) {
		if e.borrow != nil {
			w.returnJob(e)
		}
		return
	}
	if counted {
		w.recordCounted(e)
	} else {
		w.recordLater(e)
	}
}

// ran ends a job's time on this worker after its run (and, in memory
// mode, its subtree): queued again when its completion could not be
// written, else let go. running: its run still holds a slot.
func (w *Worker) ran(e *entry, requeue, running bool) {
	w.mu.Lock()
	if running {
		w.running--
	}
	if w.runs[e.id] == e {
		delete(w.runs, e.id)
	}
	queued := false
	switch {
	case requeue && !w.closing:
		if _, ok := w.known[e.id]; !ok && e.rev != 0 {
			w.known[e.id] = e.rev // a fence forgot it, and its reload skipped it as running
		}
		w.dq.PushBack(e)
		queued = true
	case e.orphan:
		w.forgetLocked(e)
	default:
		w.retireLocked(e.id, e.rev)
	}
	w.mu.Unlock()
	// Only a freed slot or a job queued again gives the dispatcher and
	// the hint loop something new to do: waking them after every
	// completion's write cost two goroutine wakeups a job for nothing.
	if running || queued {
		poke(w.kick)
		w.signal()
	}
}

// returnJob counts a finished borrowed job; the last one of its loan
// returns the loan to the lender.
func (w *Worker) returnJob(e *entry) {
	b := e.borrow
	w.mu.Lock()
	b.left--
	b.abort = b.abort || e.abort
	last := b.left == 0 && w.borrowed[b.id] == b
	if last {
		delete(w.borrowed, b.id)
		w.returned[b.id] = time.Now()
	}
	w.mu.Unlock()
	if !last {
		return
	}
	data, _ := json.Marshal(loanReturn{Loan: b.id, Thief: w.name, Abort: b.abort})
	// A return that is lost is found by the lender's audit: the loan is
	// then taken back and run again (children run at least once).
	w.nc.Publish(w.cfg.subject("w."+b.lender+".return"), data)
}

// awaitLoans waits, at most a lease, until no job with a record that this
// worker lent is still out: Close gives up the lease after it, and a
// survivor would take such a record over and run the job again while its
// thief runs it. In-memory jobs are not waited for: their roots, this
// worker's, stop with it and run again elsewhere anyway.
func (w *Worker) awaitLoans() {
	deadline := time.Now().Add(w.st.lease)
	for {
		w.mu.Lock()
		out := w.lentRecordsLocked()
		w.mu.Unlock()
		if !out || !time.Now().Before(deadline) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lentRecordsLocked reports whether a loan holds a job with a record.
func (w *Worker) lentRecordsLocked() bool {
	for _, l := range w.loans {
		for _, e := range l.jobs {
			if needsWrite(e) {
				return true
			}
		}
	}
	return false
}

// unborrowLocked takes the borrowed jobs that have not started out of the
// deque, marked to be run again by their lenders: a closing worker runs
// no new job, and returning them spares the lenders their audit's wait.
// Jobs spawned here under a borrowed job are taken out too, as not run
// (abort): left queued, their loan's subtree would never finish, and the
// loan would wait for the lender's audit. ready lists the borrowed jobs
// whose subtree that finished (see closeLocked), for finish.
func (w *Worker) unborrowLocked() (back, ready []*entry) {
	var kids []*entry
	out := w.removeLocked(func(e *entry) bool { return e.borrow != nil || e.mem && borrowedRoot(e) })
	for _, e := range out {
		e.abort = true
		if e.borrow != nil {
			back = append(back, e)
		} else {
			kids = append(kids, e)
		}
	}
	for _, e := range kids {
		if f := w.closeLocked(e); f != nil {
			ready = append(ready, f)
		}
	}
	return back, ready
}

// borrowedRoot reports whether the in-memory job e was spawned under a
// borrowed job.
func borrowedRoot(e *entry) bool {
	for e.up != nil {
		e = e.up
	}
	return e.borrow != nil
}

// lendLocked makes a loan of jobs to thief, under the id the thief chose,
// and returns what the reply carries.
func (w *Worker) lendLocked(id, thief string, jobs []*entry) []lentJob {
	l := &loan{id: id, thief: thief, jobs: jobs, at: time.Now()}
	w.loans[id] = l
	out := make([]lentJob, len(jobs))
	for i, e := range jobs {
		e.lent = l
		r := *e.rec
		r.Hops++
		r.From = w.name
		if e.rev != 0 && !e.mem {
			if _, ok := w.known[e.id]; !ok && e.borrow == nil {
				// A fence between takeBack and here forgot it; its
				// reload must not queue it while it is out on loan.
				w.known[e.id] = e.rev
			}
			out[i].Owner, out[i].Rev = e.owner, e.rev
			if out[i].Owner == "" {
				out[i].Owner = w.name
			}
			r.Check = e.verify
		}
		out[i].Rec, _ = json.Marshal(&r)
	}
	w.stats.given.Add(int64(len(jobs)))
	return out
}

// borrowLoan queues the jobs of a loan from lender at the front.
func (w *Worker) borrowLoan(lender, id string, jobs []lentJob) int {
	b := &borrowed{id: id, lender: lender}
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		// Close took the borrowed jobs out already (unborrowLocked):
		// these would never run. The lender runs them again now
		// rather than at its audit.
		data, _ := json.Marshal(loanReturn{Loan: id, Thief: w.name, Abort: true})
		w.nc.Publish(w.cfg.subject("w."+lender+".return"), data)
		return 0
	}
	defer w.mu.Unlock()
	for i := len(jobs) - 1; i >= 0; i-- {
		j := jobs[i]
		var r record
		// The lender admitted the job: this worker's own payload limit
		// (WithMaxPayload, which workers may set differently) is not
		// the lender's, and only a record no worker could admit is
		// refused.
		if json.Unmarshal(j.Rec, &r) != nil || r.check(maxPayloadLimit) != nil || (j.Rev != 0) != validName(j.Owner) {
			// Cannot happen between workers of one version. A job
			// dropped must not be returned as finished: the loan's
			// return asks the lender to run them all again.
			b.abort = true
			continue
		}
		e := &entry{id: r.ID, rec: &r, borrow: b, rev: j.Rev, owner: j.Owner, verify: r.Check}
		if j.Rev == 0 {
			e.mem, e.open = true, 1
		}
		b.left++
		w.enterLocked()
		w.dq.PushFront(e)
	}
	if b.left > 0 {
		w.borrowed[id] = b
	}
	return b.left
}

// onReturn finishes the jobs of a returned loan, or queues them again
// when the thief could not run them all.
func (w *Worker) onReturn(m *nats.Msg) {
	var r loanReturn
	if json.Unmarshal(m.Data, &r) != nil {
		return
	}
	w.mu.Lock()
	l := w.loans[r.Loan]
	if l == nil || l.thief != r.Thief || w.sealed {
		w.mu.Unlock()
		return // taken back already, or not ours
	}
	delete(w.loans, r.Loan)
	var ready, relent []*entry
	for _, e := range l.jobs {
		e.lent = nil
		switch {
		case r.Abort:
			w.requeueLentLocked(e)
		case e.mem || e.rev == 0:
			if f := w.closeLocked(e); f != nil {
				ready = append(ready, f)
			}
		case e.borrow != nil:
			relent = append(relent, e) // borrowed and lent on: completed by the thief
		default:
			w.retireLocked(e.id, e.rev) // the thief wrote its completion
		}
	}
	for _, f := range ready {
		if needsWrite(f) {
			// Counted under mu before Close seals: Close, which
			// waits for finishing once its handlers are done, does
			// not know of this callback, which may run on past that
			// point.
			w.finishing.Add(1)
		}
	}
	w.mu.Unlock()
	for _, f := range ready {
		w.finishCounted(f, true)
	}
	for _, e := range relent {
		w.returnJob(e)
	}
	poke(w.kick)
	w.signal()
}

// requeueLentLocked queues a job taken back from a loan again, at the
// back. A job with a record is checked against the ledger before it runs:
// the thief may have completed it.
func (w *Worker) requeueLentLocked(e *entry) {
	if e.rev != 0 && !e.mem {
		e.verify = true
	}
	w.enterLocked()
	w.dq.PushBack(e)
}

// onLoans answers a lender's audit with the loans this worker holds or
// returned lately.
func (w *Worker) onLoans(m *nats.Msg) {
	var a loanAudit
	if err := json.Unmarshal(m.Data, &a); err != nil {
		refuse(m, &Error{ErrMalformedJob.Code, "malformed loan audit: " + err.Error()})
		return
	}
	held := []string{}
	w.mu.Lock()
	for _, id := range a.Loans {
		b := w.borrowed[id]
		_, back := w.returned[id]
		if back || b != nil && b.lender == a.Lender {
			held = append(held, id)
		}
	}
	w.mu.Unlock()
	data, _ := json.Marshal(loanAudit{Lender: a.Lender, Loans: held})
	m.Respond(data)
}

// loanLoop audits loans older than a lease, every lease/4, and forgets
// returns older than two leases.
func (w *Worker) loanLoop() {
	w.every(w.st.lease/4, func() bool {
		w.audit()
		return true
	})
}

// audit asks each thief holding an old loan which loans it holds, and
// takes back the others.
func (w *Worker) audit() {
	now := time.Now()
	byThief := map[string][]string{}
	w.mu.Lock()
	for id, l := range w.loans {
		if now.Sub(l.at) > w.st.lease {
			byThief[l.thief] = append(byThief[l.thief], id)
		}
	}
	for id, at := range w.returned {
		if now.Sub(at) > 2*w.st.lease {
			delete(w.returned, id)
		}
	}
	w.mu.Unlock()
	for thief, ids := range byThief {
		held, ok := w.askLoans(thief, ids)
		if !ok {
			continue
		}
		w.reclaimLoans(thief, ids, held)
	}
}

// askLoans asks thief which of ids it holds. ok is false when that is not
// known: the thief did not answer, yet its lease is live.
func (w *Worker) askLoans(thief string, ids []string) (held map[string]bool, ok bool) {
	data, _ := json.Marshal(loanAudit{Lender: w.name, Loans: ids})
	m, err := w.nc.Request(w.cfg.subject("w."+thief+".loans"), data, w.cfg.timeout)
	held = map[string]bool{}
	if err != nil {
		return held, !w.alive(thief)
	}
	var a loanAudit
	if json.Unmarshal(m.Data, &a) != nil {
		return held, false
	}
	for _, id := range a.Loans {
		held[id] = true
	}
	return held, true
}

// reclaimLoans queues again the jobs of the loans among ids that thief does
// not hold.
func (w *Worker) reclaimLoans(thief string, ids []string, held map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, id := range ids {
		l := w.loans[id]
		if l == nil || l.thief != thief || held[id] {
			continue
		}
		delete(w.loans, id)
		for _, e := range l.jobs {
			e.lent = nil
			w.requeueLentLocked(e)
			n++
		}
	}
	if n > 0 {
		w.stats.takenBack.Add(int64(n))
		w.signal()
	}
}

// newLoanID names a loan; the thief chooses it, so that it knows the loan
// it asked for even when the reply is lost.
func newLoanID() string { return nuid.Next() }

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// maxCompleteTries bounds the attempts of one completion whose fence moved
// under it (an anchor that completed meanwhile, or a check the servers
// refused while another batch on the same key was in flight).
const maxCompleteTries = 5

// complete records the outcome of e in one batch: the completion d.<id> is
// create-only (the first one wins); the delete of e's record, if it has
// one, is a compare-and-swap on its revision (a fenced worker's completion
// is refused); and the records of the children e spawned that are still
// pending are written under this worker's name, so that from then on they
// are durable. A job without a record writes no delete; its children's
// records are conditional on its anchor's record instead (see local.go).
// Children that do not fit in one batch are written first, in batches
// conditional on the same record. It reports whether the job must be
// queued again because the servers could not be reached.
//
// A bundle's completion records its jobs' outcomes instead of its own (see
// bundle.go).
func (w *Worker) complete(e *entry, out *outcome) (requeue bool) {
	data, _ := json.Marshal(out)
	for try := 1; ; try++ {
		done := w.outcomeOps(e, data) // a bundle's shrinks when the ledger holds some
		w.mu.Lock()
		c := w.claimLocked(e)
		w.mu.Unlock()
		revs, err := w.writeCompletion(done, w.keyOf(e), c.rev, c.kids, c.guard, c.grev)
		w.findKids(c.kids, revs)
		// Judged before the claim ends: a job found completed already is
		// marked gone first, else its parent's completion, free to claim
		// it, would write it a record and run it again.
		again, requeue := w.judge(e, c, out, err)
		w.settle(c, revs, err == nil)
		if !again {
			return requeue
		}
		if try == maxCompleteTries {
			return true
		}
	}
}

// writeCompletion commits the completions outs (creates of d.<id>), the
// delete of their job's record (key at rev, rev 0 for none) and the
// records of kids; it returns the revision of each kid's record, 0 for
// those not written.
func (w *Worker) writeCompletion(outs []op, key string, rev uint64, kids []*entry, guard string, grev uint64) ([]uint64, error) {
	ctx := context.Background()
	kops := w.kidOps(kids, guard, grev)
	main := outs
	if rev != 0 {
		main = append([]op{{key: key, del: true, check: true, expect: rev}}, main...)
	}
	kidRevs := make([]uint64, len(kids))
	if len(kids) == 0 && rev != 0 {
		return kidRevs, w.commitGrouped(main)
	}
	fixed := 512
	for _, o := range outs {
		fixed += len(o.value) + 256
	}
	done := 0
	pre := nuid.Next()
	for batchLimit(kops[done:], fixed) < len(kops)-done {
		n := max(1, batchLimit(kops[done:], 0))
		batch := kops[done : done+n]
		for i := range batch {
			// The guard does not notice these writes: a retry of a batch
			// applied before its answer was lost would write the records
			// again, at new revisions (see giveAway). The servers refuse
			// it as a duplicate instead.
			batch[i].msgID = pre + "." + strconv.Itoa(done+i)
		}
		revs, err := w.st.commit(ctx, batch)
		switch {
		case errors.Is(err, errDupMsg):
			// Applied by an attempt whose answer was lost: the kids keep
			// revision 0 until the echo of their records reaches them.
		case err != nil:
			return kidRevs, err
		default:
			copy(kidRevs[done:], revs)
		}
		done += n
	}
	rest := kops[done:]
	if rev != 0 {
		for i := range rest {
			// The delete of the record fences them; a check on a key
			// the batch also writes would be refused by the server.
			rest[i].guard, rest[i].check = "", false
		}
	}
	revs, err := w.st.commit(ctx, append(main, rest...))
	if err == nil {
		copy(kidRevs[done:], revs[len(main):])
	}
	return kidRevs, err
}

// findKids reads the records of kids that a completion's batches may have
// written without this worker learning their revisions: a batch refused
// as a duplicate of an attempt whose answer was lost, or a final batch
// whose answer never came or that a retry found applied already. The
// claim still holds them, so none has started completing. Left at
// revision 0, a kid whose record exists would run fenced on its parent's
// deleted record, be refused, and run again when the echo of its record
// arrived. An answered attempt came on the same connection after every
// earlier one, so what the servers hold then is final. With no answer at
// all a batch may still land after the reads, and when the records cannot
// be read the kids stay as they were: the job is queued again either way.
func (w *Worker) findKids(kids []*entry, revs []uint64) {
	for i, k := range kids {
		if revs[i] != 0 {
			continue
		}
		r, err := w.st.get(context.Background(), qKey(w.name, k.id))
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return
		default:
			revs[i] = r.Revision()
		}
	}
}

// settle releases the claims of a completion batch and records the
// children's new records.
func (w *Worker) settle(c claim, revs []uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.releaseLocked(c, revs)
	if ok {
		// Its pending children have records now: nothing walks through
		// it to an anchor any more, and a tree need not stay in memory.
		c.e.gone, c.e.kids, c.e.parent = true, nil, nil
	}
}

// judge reads the answer to a completion batch: whether to try again, and
// whether to queue the job again.
func (w *Worker) judge(e *entry, c claim, out *outcome, err error) (again, requeue bool) {
	ctx := context.Background()
	rev := c.rev
	switch {
	case err == nil:
		w.stats.completed.Add(w.completions(e))
		return false, false
	case !errors.Is(err, errConflict):
		return false, true
	case rev != 0 && !w.stillOurs(w.keyOf(e), rev):
		w.countGone(ctx, w.firstOutcome(e, out), w.completions(e))
	case isBundle(e):
		return w.judgeBundle(e)
	case rev != 0:
		// Ours, but completed before (a duplicate record): retire it.
		w.stats.duplicates.Add(1)
		w.st.commit(ctx, []op{{key: w.keyOf(e), del: true, check: true, expect: rev}})
	default:
		return w.judgeLocal(e, c.guard, c.grev, out)
	}
	w.gone(e)
	return false, false
}

// judgeLocal reads a refused completion of a job that had no record:
// either the ledger holds a completion already (this run is a re-run, or
// a retry whose first attempt was applied), or the anchor's record moved.
func (w *Worker) judgeLocal(e *entry, guard string, grev uint64, out *outcome) (again, requeue bool) {
	ctx := context.Background()
	o, err := w.st.done(ctx, e.id)
	switch {
	case err != nil:
		return false, true
	case o != nil && sameOutcome(o, out):
		w.stats.completed.Add(1)
	case o != nil:
		w.stats.duplicates.Add(1)
	default:
		w.mu.Lock()
		g2, r2 := w.guardLocked(e)
		w.mu.Unlock()
		if g2 != guard || r2 != grev {
			return true, false // the anchor completed meanwhile: fence on the new one
		}
		if guard != "" && w.stillOurs(guard, grev) {
			return true, false // refused although nothing moved: try again
		}
		// The anchor moved (this worker was taken for dead): its new
		// owner's re-run spawns this job again, maybe here, so it must
		// not be remembered as done.
		w.stats.refused.Add(1)
		w.mu.Lock()
		e.orphan = true
		w.mu.Unlock()
	}
	w.gone(e)
	return false, false
}

// gone marks e as no longer its parent's to write.
func (w *Worker) gone(e *entry) {
	w.mu.Lock()
	e.gone = true
	w.mu.Unlock()
}

// countGone counts a completion refused because the record is gone: either
// another worker owns the job, or a retried commit found its own first
// attempt applied (the ledger then holds this very outcome).
func (w *Worker) countGone(ctx context.Context, out *outcome, n int64) {
	if o, err := w.st.done(ctx, out.ID); err == nil && o != nil && sameOutcome(o, out) {
		w.stats.completed.Add(n)
		return
	}
	w.stats.refused.Add(n)
}

// sameOutcome reports whether the recorded completion o is this worker's
// out: written by an attempt whose answer was lost, or by an earlier run of
// the same entry queued again after its completion could not be written.
// Worker, attempt and code are not enough: a run of the same job by this
// worker before it fenced itself reads the same.
func sameOutcome(o, out *outcome) bool {
	return o.Run != "" && o.Run == out.Run
}

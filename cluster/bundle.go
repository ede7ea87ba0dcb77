package cluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nuid"
	"github.com/worksteal/steal"
)

// Bundles. A job's record costs the servers a write, its delivery to the
// owner's watch, a delete in the completion's batch and the delete's
// delivery: about five messages a job however small the job. A bundle is
// one record that holds many jobs, written to one worker: the record's
// write and deliveries are shared by its jobs, and only each job's
// completion (one create of d.<id>) is its own. The worker runs a
// bundle's jobs one after the other in one slot, and records their
// completions together, in one atomic batch with the delete of the
// bundle's record: all of them or none, so a bundle whose record is live
// has none of its completions recorded. A bundle moves as one job: it is
// stolen, lent and taken over whole.
//
// What a bundle gives up is the submission's check of each id: an id
// already completed or queued is not refused when the bundle is written.
// Its completion is create-only as every completion is, so the batch that
// would record it a second time is refused; the worker then reads which
// of the bundle's ids the ledger holds, leaves them out, and writes the
// others (judgeBundle).

// MaxBundleJobs is the most jobs SubmitBundle puts in one bundle. The
// cost of a bundle's record and completion is shared by its jobs: at 32,
// a flat job costs about 1.2 server messages (the ledger's write and a
// share of the rest); more would save little and make a bundle a longer
// run that no thief can split.
const MaxBundleJobs = 32

// bundleIDPrefix starts the id of every bundle's record.
const bundleIDPrefix = "bundle-"

// SubmitBundle queues jobs in bundles: a bundle holds up to MaxBundleJobs
// jobs in one record, written under one worker's name, which runs them one
// after the other and records their completions together. The jobs are
// cut into as few bundles as hold them, of sizes that differ by one at
// most, dealt round the live workers (read as Submit reads them), each
// call on from where the client's last batch ended, or all to To's worker; every bundle of a call is
// written in one atomic batch (a chunk of them when they are more than 256
// or about 600 KiB). A flat job costs about 1.5 server messages from
// submission to completion this way, against about 6 with SubmitBatch and
// 7 with Submit. Bundles suit many small jobs: idle workers steal queued
// bundles, but a bundle's jobs run one after the other, on one worker.
//
// What a bundle gives up is SubmitBatch's check of each id against the
// ledger and the duplicate window when it is written: a job whose id is
// completed already, or queued in another record, is queued anyway; and
// the window knows the bundle's id, not its jobs', so a Submit or
// SubmitBatch of an id queued in a bundle is not refused either. Its
// completion is still recorded exactly once: the worker that runs it
// finds the ledger holding one, leaves it out of the bundle's batch, and
// counts it in WorkerStats.Duplicates; Wait returns the first completion.
// Its handler may run once more. A bundle moves as one job: a thief steals
// or borrows a whole bundle, and a bundle whose worker died is taken over
// whole; then all its jobs run again, since none of its completions is
// recorded until all of them are. Use SubmitBatch when a submission must
// refuse a duplicate, or when jobs run long enough (a millisecond and
// more) that they should spread one by one.
//
// Input is checked as SubmitBatch checks it, all of it first: an invalid
// id, type, payload or To returns an error naming the first such job's
// index and nothing is sent. An empty jobs returns nil. Otherwise
// SubmitBundle returns nil when every job was queued, and else a
// *BatchError: ErrDuplicateJob for an id that an earlier job of the same
// call has (the first is queued), ErrNoWorkers when there is no live
// worker (or none of To's name), and for the jobs of a chunk that could
// not be written, the chunk's error (ctx ended, an error wrapping
// ErrUnavailable after the retry window, a server error): their outcome
// is unknown and submitting them again is safe, as their completions are
// recorded once. It may be called from several goroutines at once.
//
// Every worker of the cluster must run this version or a later one before
// a client calls SubmitBundle: an earlier worker takes a bundle for a job
// of an unknown type and records it as failed, and runs none of its jobs.
func (c *Client) SubmitBundle(ctx context.Context, jobs []BatchJob, opts ...SubmitOption) error {
	so, recs, err := c.batchInput("SubmitBundle", jobs, opts)
	if err != nil {
		return err
	}
	errs := make([]error, len(jobs))
	send, failed := firstOfEach(recs, errs)
	for _, ch := range chunkBundles(cutBundles(recs, send)) {
		err := ctx.Err()
		if err == nil {
			err = c.writeBundles(ctx, so.to, ch)
		}
		if err != nil {
			for _, b := range ch {
				fill(errs, b.idx, err)
			}
			failed = true
		}
	}
	return batchResult(errs, failed)
}

// bundleCut is one bundle of a SubmitBundle call.
type bundleCut struct {
	idx  []int  // its jobs' indexes in the call
	id   string // its record's id
	data []byte // its record, encoded
}

// cutBundles cuts the jobs of recs named by send into as few bundles as
// hold them, each with an id of its own: at most MaxBundleJobs jobs a
// bundle, their sizes differing by one at most, and about maxStealBytes
// of payload at most (a job too large to share a bundle goes alone).
func cutBundles(recs []record, send []int) []bundleCut {
	count := (len(send) + MaxBundleJobs - 1) / MaxBundleJobs
	var out []bundleCut
	var cur []int
	size := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		b := bundleCut{idx: cur, id: bundleIDPrefix + nuid.Next()}
		r := record{ID: b.id, Type: "bundle", Bundle: make([]record, len(cur))}
		for k, i := range cur {
			r.Bundle[k] = recs[i]
		}
		b.data, _ = json.Marshal(&r)
		out, cur, size = append(out, b), nil, 0
	}
	for k, i := range send {
		sz := base64.StdEncoding.EncodedLen(len(recs[i].Payload)) + 256
		// Bundle b of count ends before job (b+1)·len(send)/count.
		b := len(out) + 1
		if len(cur) > 0 && (k*count >= b*len(send) || len(cur) == MaxBundleJobs || size+sz > maxStealBytes) {
			flush()
		}
		cur, size = append(cur, i), size+sz
	}
	flush()
	return out
}

// chunkBundles groups bundles into chunks of at most maxChunkJobs bundles
// and about maxStealBytes of records, each written in one atomic batch.
func chunkBundles(bs []bundleCut) [][]bundleCut {
	var out [][]bundleCut
	from, size := 0, 0
	for i, b := range bs {
		if i > from && (i-from == maxChunkJobs || size+len(b.data) > maxStealBytes) {
			out, from, size = append(out, bs[from:i]), i, 0
		}
		size += len(b.data)
	}
	if from < len(bs) {
		out = append(out, bs[from:])
	}
	return out
}

// writeBundles writes the records of ch in one atomic batch, dealt round
// the live workers (or all under to's name), retrying as Submit does. A
// bundle's message id is its own id, which nothing else writes: refused
// as a duplicate, the batch is one of this call's attempts, applied
// although its answer was lost.
func (c *Client) writeBundles(ctx context.Context, to string, ch []bundleCut) error {
	var ops []op // built once: a retry writes where the lost attempt did
	err := retry(ctx, func(int) error {
		if ops == nil {
			owners, err := c.targets(ctx, to, len(ch))
			if err != nil {
				return err
			}
			ops = make([]op, len(ch))
			for k, b := range ch {
				ops[k] = op{key: qKey(owners[k], b.id), value: b.data, msgID: b.id}
			}
		}
		_, err := c.st.commitOnce(ctx, ops)
		return err
	})
	if errors.Is(err, errDupMsg) {
		return nil
	}
	return err
}

// isBundle reports whether e's record is a bundle's.
func isBundle(e *entry) bool { return e.rec != nil && len(e.rec.Bundle) > 0 }

// executeBundle runs the jobs of bundle e one after the other and keeps
// their outcomes in e.outs. It reports false, as execute does, when the
// bundle's completions must not be recorded: a job's handler failed
// because the worker is closing, or found the bundle's record taken over.
// A job whose id is invalid has no key to be recorded under and does not
// run, nor does one whose id an earlier job of the bundle has: one batch
// cannot create a key twice, so the servers would refuse every try of
// the bundle's (a client checks ids; a bundle written by other means may
// not).
//
// A bundle of more than MaxBundleJobs jobs (written by other means) runs
// none: its completion's batch could outgrow what the servers take in
// one, and be refused at every try. Its own id records the failure.
func (w *Worker) executeBundle(e *entry, sw *steal.Worker, run string, out *outcome) bool {
	r := e.rec
	if len(r.Bundle) > MaxBundleJobs {
		out.Code, out.Text = ErrMalformedJob.Code, fmt.Sprintf("bundle of %d jobs, at most %d", len(r.Bundle), MaxBundleJobs)
		w.mu.Lock()
		e.outs = []outcome{*out}
		w.mu.Unlock()
		return true
	}
	outs := make([]outcome, 0, len(r.Bundle))
	i, returned := 0, false
	defer ifGoexit(&returned, func() { w.bundleGoexit(e, run, outs, i) })
	for i = range r.Bundle {
		m := &r.Bundle[i]
		if !validID(m.ID) || repeats(r.Bundle[:i], m.ID) {
			continue
		}
		o := w.bundleOutcome(r, m, run)
		j := &Job{ID: m.ID, Type: m.Type, Payload: m.Payload, Cost: m.Cost, Attempt: r.Attempt,
			StolenFrom: r.From, w: w, e: e, local: sw}
		if !w.handle(e, j, &o) {
			returned = true
			return false
		}
		outs = append(outs, o)
	}
	returned = true
	w.mu.Lock()
	e.outs = outs
	w.mu.Unlock()
	return true
}

// bundleGoexit keeps in e.outs the outcomes of bundle e's jobs when the
// handler of its job at index at called runtime.Goexit, which ends the
// bundle's run (see runRecord): outs, those of the jobs that ran before;
// that job's failure, as for a panic; and for each job after it, a
// failure saying that it did not run. A Goexit cannot be stopped, and the
// bundle's completions are recorded together: left out, those jobs would
// be lost with the bundle's record.
func (w *Worker) bundleGoexit(e *entry, run string, outs []outcome, at int) {
	r := e.rec
	for i := at; i < len(r.Bundle); i++ {
		m := &r.Bundle[i]
		if !validID(m.ID) || repeats(r.Bundle[:i], m.ID) {
			continue
		}
		o := w.bundleOutcome(r, m, run)
		o.Code, o.Text = ErrHandlerPanic.Code, goexitText
		if i > at {
			o.Text = "did not run: job " + r.Bundle[at].ID + " of its bundle called runtime.Goexit"
		}
		outs = append(outs, o)
	}
	w.mu.Lock()
	e.outs = outs
	w.mu.Unlock()
}

// bundleOutcome is the outcome of bundle r's job m, run by this worker
// under run, before the job says how it ended.
func (w *Worker) bundleOutcome(r, m *record, run string) outcome {
	return outcome{ID: m.ID, Type: m.Type, Worker: w.name, Run: run, Attempt: r.Attempt, Hops: r.Hops}
}

// repeats reports whether one of jobs has id (a bundle's jobs are few:
// a map would cost more than the scan).
func repeats(jobs []record, id string) bool {
	for i := range jobs {
		if jobs[i].ID == id {
			return true
		}
	}
	return false
}

// outcomeOps returns the creates of the completions that e's batch
// records: e's own (data), or for a bundle, its jobs' outcomes.
func (w *Worker) outcomeOps(e *entry, data []byte) []op {
	if !isBundle(e) {
		return []op{{key: dKey(e.id), value: data, check: true, expect: 0}}
	}
	w.mu.Lock()
	outs := e.outs
	w.mu.Unlock()
	ops := make([]op, len(outs))
	for i := range outs {
		b, _ := json.Marshal(&outs[i])
		ops[i] = op{key: dKey(outs[i].ID), value: b, check: true, expect: 0}
	}
	return ops
}

// judgeBundle reads a refused completion of bundle e whose record is still
// this worker's: the ledger holds the completion of some of its jobs (an
// id submitted twice). Those are left out of the next try, each counted
// as completed when it is this run's own (an attempt whose answer was
// lost) and as a duplicate otherwise. With none found, the refusal is not
// explained, and the bundle tries again all the same (complete bounds
// the tries). When the ledger cannot be read, the bundle is queued again.
func (w *Worker) judgeBundle(e *entry) (again, requeue bool) {
	w.mu.Lock()
	outs := e.outs
	w.mu.Unlock()
	keep := make([]outcome, 0, len(outs))
	for i := range outs {
		o, err := w.st.done(context.Background(), outs[i].ID)
		switch {
		case err != nil:
			return false, true
		case o == nil:
			keep = append(keep, outs[i])
		case sameOutcome(o, &outs[i]):
			w.stats.completed.Add(1)
		default:
			w.stats.duplicates.Add(1)
		}
	}
	w.mu.Lock()
	e.outs = keep
	w.mu.Unlock()
	return true, false
}

// completions is the number of completions e's batch records.
func (w *Worker) completions(e *entry) int64 {
	if !isBundle(e) {
		return 1
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return int64(len(e.outs))
}

// firstOutcome is the outcome countGone reads for e: out, or for a
// bundle, its first job's (a bundle's completions are recorded together).
func (w *Worker) firstOutcome(e *entry, out *outcome) *outcome {
	if !isBundle(e) {
		return out
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(e.outs) == 0 {
		return out
	}
	return &e.outs[0]
}

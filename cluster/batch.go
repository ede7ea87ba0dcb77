package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// BatchJob is one job of a SubmitBatch call.
type BatchJob struct {
	ID      string
	Type    string
	Payload []byte
	Cost    int64 // handed to the handler as Job.Cost; 0 takes the Cost option's, if given
}

// BatchError reports the jobs of a SubmitBatch call that were not queued.
// Errs has one entry per job of the call, in its order: nil for a job that
// was queued, else why it was not, or why its outcome is unknown (see
// SubmitBatch).
type BatchError struct {
	Errs []error
}

// Error summarizes the failures: how many, and the first one.
func (e *BatchError) Error() string {
	n, first := 0, -1
	for i, err := range e.Errs {
		if err != nil {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if first < 0 {
		return "cluster: batch: every job queued"
	}
	return fmt.Sprintf("cluster: batch: %d of %d jobs not queued; job %d: %v", n, len(e.Errs), first, e.Errs[first])
}

// Unwrap returns the errors of the jobs that were not queued, so that
// errors.Is(err, ErrDuplicateJob) reports whether any job was a duplicate.
func (e *BatchError) Unwrap() []error {
	var out []error
	for _, err := range e.Errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Chunking. SubmitBatch writes a call's records in chunks, each one
// atomic batch: at most maxChunkJobs records (the servers take at most
// 1000 messages in an atomic batch, streamDefaultMaxAtomicBatchSize in
// nats-server v2.15.2 server/stream.go; a smaller chunk keeps a batch's
// answer well within WithRequestTimeout and what the servers stage for it
// small) and about maxStealBytes of records, as a steal's batch.
const maxChunkJobs = 256

// batchHeader marks a submission request to a worker's submit subject as a
// batch (batchRequest); a single submission is a bare record on the same
// subjects.
const batchHeader = "Steal-Batch"

// batchRequest is the body of a batch submission to a worker's submit
// subject.
type batchRequest struct {
	Jobs []record `json:"jobs"`
}

// SubmitBatch queues jobs, in as few messages as it can: it writes their
// records itself, in chunks (up to 256 jobs, and about 600 KiB of
// records), each chunk in one atomic batch; without To, a chunk's jobs
// are dealt round the live workers (read as Submit reads them), and the
// workers then balance them by stealing. Each record is checked as Submit's is, against the ledger and
// the servers' duplicate window, in the batch's one round trip. A flat job
// costs about 6 server messages from submission to completion this way.
// The Cost option applies to the jobs whose Cost is 0.
//
// Input is checked first, all of it: a job with an invalid id, type or
// payload, or an invalid To, makes SubmitBatch return an error that names
// the first such job's index and wraps ErrInvalidID, ErrInvalidType,
// ErrPayloadTooLarge or ErrInvalidName; nothing is sent. An empty jobs
// returns nil.
//
// Otherwise SubmitBatch returns nil when every job was queued, and else a
// *BatchError whose Errs[i] says what became of jobs[i]:
//
//   - nil: queued. From then on it is never lost while the servers keep
//     their data, and it completes exactly once, as with Submit.
//   - ErrDuplicateJob: an id already completed or submitted within the
//     servers' duplicate window (as Submit detects them, see Limits), or
//     one that an earlier job of the same call has: the first of them is
//     the one submitted. Nothing was changed for that job.
//   - an error wrapping ErrMaybeStored: an attempt's answer was lost and
//     the retry was refused as a duplicate: the job is stored, by this
//     call or by another submission of the id.
//   - ErrNoWorkers: no live worker (or none of To's name); not stored.
//   - anything else (ctx ended, an error wrapping ErrUnavailable after
//     the retry window, a server error): the outcome is unknown. The
//     job may be stored; submitting it again is safe, since a submission
//     is deduplicated by id.
//
// Chunks are written one after the other, each retried as Submit is.
// Chunks are independent: some may be queued and others not. Within a
// chunk every job is stored, or none, unless one of its ids is a
// duplicate: SubmitBatch then writes the others one by one. When ctx
// ends, chunks not yet sent get ctx.Err() (not stored), and the chunk sent
// but not answered gets the last attempt's error (unknown). SubmitBatch
// may be called from several goroutines at once, as Submit.
//
// The jobs a worker gets enter its deque in their order in jobs, as
// successive Submits to that worker would, unless their chunk held a
// duplicate.
func (c *Client) SubmitBatch(ctx context.Context, jobs []BatchJob, opts ...SubmitOption) error {
	so, recs, err := c.batchInput("SubmitBatch", jobs, opts)
	if err != nil {
		return err
	}
	errs := make([]error, len(jobs))
	send, failed := firstOfEach(recs, errs) // repeated ids: the first is submitted
	for _, ch := range chunkRecords(recs, send) {
		if err := ctx.Err(); err != nil {
			fill(errs, ch.idx, err)
			failed = true
			continue
		}
		out := c.submitChunk(ctx, so.to, recs, ch)
		for k, i := range ch.idx {
			if out[k] != nil {
				errs[i], failed = out[k], true
			}
		}
	}
	return batchResult(errs, failed)
}

// batchInput checks a batch call's options and jobs, as SubmitBatch and
// SubmitBundle (call) do, and returns the options and the jobs' records;
// the Cost option applies to the jobs whose Cost is 0.
func (c *Client) batchInput(call string, jobs []BatchJob, opts []SubmitOption) (submitOpts, []record, error) {
	var so submitOpts
	for _, o := range opts {
		o(&so)
	}
	if so.toSet && !validName(so.to) {
		return so, nil, fmt.Errorf("%s: To(%q): %w", call, so.to, ErrInvalidName)
	}
	recs := make([]record, len(jobs))
	for i, j := range jobs {
		recs[i] = record{ID: j.ID, Type: j.Type, Payload: j.Payload, Cost: j.Cost}
		if recs[i].Cost == 0 {
			recs[i].Cost = so.cost
		}
		if err := recs[i].check(c.cfg.maxPayload); err != nil {
			return so, nil, fmt.Errorf("%s: job %d (id %q): %w", call, i, truncID(j.ID), err)
		}
	}
	return so, recs, nil
}

// firstOfEach returns the indexes of recs to send: the first job of each
// id. The others get ErrDuplicateJob in errs; failed says whether any did.
func firstOfEach(recs []record, errs []error) (send []int, failed bool) {
	seen := make(map[string]struct{}, len(recs))
	for i := range recs {
		if _, dup := seen[recs[i].ID]; dup {
			errs[i], failed = ErrDuplicateJob, true
			continue
		}
		seen[recs[i].ID] = struct{}{}
		send = append(send, i)
	}
	return send, failed
}

// fill sets errs[i] to err for each i of idx.
func fill(errs []error, idx []int, err error) {
	for _, i := range idx {
		errs[i] = err
	}
}

// batchResult is what SubmitBatch and SubmitBundle return for errs.
func batchResult(errs []error, failed bool) error {
	if !failed {
		return nil
	}
	return &BatchError{Errs: errs}
}

func truncID(id string) string {
	if len(id) > 80 {
		return id[:80] + "..."
	}
	return id
}

// chunk is a part of a SubmitBatch call: one atomic batch.
type chunk struct {
	idx  []int    // the jobs' indexes in the call
	data [][]byte // their records, encoded
}

// chunkRecords cuts the jobs of recs named by send into chunks of at most
// maxChunkJobs jobs and about maxStealBytes of records; a job too large
// to share a chunk goes alone (records are at most 512 KiB of payload).
func chunkRecords(recs []record, send []int) []chunk {
	var out []chunk
	var cur chunk
	size := 0
	for _, i := range send {
		b, _ := json.Marshal(&recs[i])
		if len(cur.idx) == maxChunkJobs || len(cur.idx) > 0 && size+len(b)+256 > maxStealBytes {
			out, cur, size = append(out, cur), chunk{}, 0
		}
		cur.idx, cur.data = append(cur.idx, i), append(cur.data, b)
		size += len(b) + 256
	}
	if len(cur.idx) > 0 {
		out = append(out, cur)
	}
	return out
}

// submitChunk writes one chunk's records in one atomic batch, dealt round
// the workers (targets), retrying as Submit does, and returns an error per job of
// the chunk (nil: queued). Each put carries the two checks of a single
// submission (see Client.submitOnce): its message id is the job id
// (checkMsgHeadersPreClusteredProposal in nats-server v2.15.2
// server/jetstream_batching.go checks Nats-Msg-Id for every message of an
// atomic batch, against the stream's window and the batch's own ids,
// answering 10201), and it is conditional on d.<id> having no message
// (the same function checks Nats-Expected-Last-Subject-Sequence with
// Nats-Expected-Last-Subject-Sequence-Subject per message). A batch fails
// as a whole and the servers do not say which message failed: on a
// duplicate id or a completed job, submitChunk falls back to one write per
// record, which sorts the duplicates from the others.
func (c *Client) submitChunk(ctx context.Context, to string, recs []record, ch chunk) []error {
	out := make([]error, len(ch.idx))
	var owners []string // picked once: a retry writes where the lost attempt did
	var ops []op
	retried := false
	err := retry(ctx, func(attempt int) error {
		if owners == nil {
			var err error
			if owners, err = c.targets(ctx, to, len(ch.idx)); err != nil {
				return err
			}
			ops = make([]op, len(ch.idx))
			for k, i := range ch.idx {
				ops[k] = submitOp(owners[k], recs[i].ID, ch.data[k])
			}
		} else {
			retried = true
		}
		_, err := c.st.commitOnce(ctx, ops)
		return err
	})
	if refused(err) {
		c.submitEach(ctx, owners, recs, ch, retried, out)
		return out
	}
	for k := range out {
		out[k] = err
	}
	return out
}

// submitEach writes a chunk's records one by one, each under its owner's
// name (owners[k]), a few at once, into out. After a retried batch, a
// duplicate may be the batch's own first attempt, applied although its
// answer was lost: a record found under the owner's name is taken as
// queued, and otherwise the job is reported as maybe stored.
func (c *Client) submitEach(ctx context.Context, owners []string, recs []record, ch chunk, retried bool, out []error) {
	fewAtOnce(len(ch.idx), func(k int) {
		id, owner, again := recs[ch.idx[k]].ID, owners[k], false
		err := retry(ctx, func(attempt int) error {
			again = attempt > 0
			_, err := c.st.putSubmitted(ctx, owner, id, ch.data[k])
			return err
		})
		switch {
		case !refused(err):
			out[k] = err
		case !retried && !again:
			out[k] = ErrDuplicateJob
		default:
			if _, err := c.st.get(ctx, qKey(owner, id)); err == nil {
				out[k] = nil
			} else {
				out[k] = fmt.Errorf("%w: an attempt's answer was lost and the retry was refused as a duplicate", ErrMaybeStored)
			}
		}
	})
}

// fewAtOnce calls f(k) for each k in [0, n), at most 8 at once, and
// returns when every call has: the one-write-per-record fallback of a
// refused batch, client's or worker's, without a goroutine (and a request
// in flight) per record of a 256-record chunk.
func fewAtOnce(n int, f func(k int)) {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for k := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(k)
		})
	}
	wg.Wait()
}

// onSubmitBatch takes a batch submission: it refuses the jobs that are
// invalid or held here already, stores the others' records in one atomic
// batch and queues them, and answers with a code per job. Like onSubmit it
// answers only once the records are durable.
func (w *Worker) onSubmitBatch(m *nats.Msg) {
	var req batchRequest
	if err := json.Unmarshal(m.Data, &req); err != nil {
		refuse(m, &Error{ErrMalformedJob.Code, "malformed batch submission: " + err.Error()})
		return
	}
	codes := make([]string, len(req.Jobs))
	var todo []*record
	var at []int // todo[k] answers codes[at[k]]
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		refuse(m, ErrClosed)
		return
	}
	seen := make(map[string]struct{}, len(req.Jobs))
	for i := range req.Jobs {
		r := &req.Jobs[i]
		if err := r.check(w.cfg.maxPayload); err != nil {
			codes[i] = err.(*Error).Code
			continue
		}
		_, held := w.known[r.ID]
		_, again := seen[r.ID]
		if held || again {
			codes[i] = ErrDuplicateJob.Code
			continue
		}
		seen[r.ID] = struct{}{}
		r.fresh()
		todo, at = append(todo, r), append(at, i)
	}
	if len(todo) > 0 {
		w.enterLocked()
		w.incoming += len(todo)
	}
	w.mu.Unlock()
	rep := submitReply{Worker: w.name, Codes: codes}
	if len(todo) > 0 {
		for k, r := range w.writeBatch(todo) {
			codes[at[k]] = r.Code
			if r.Text != "" && rep.Text == "" {
				rep.Text = r.Text // the first server error, for the codes that have no sentinel
			}
		}
	}
	respond(m, rep)
}

// writeBatch stores the records rs and queues them; incoming was raised by
// len(rs) by the caller, and is lowered here. It returns one answer per
// record.
//
// The records go in one atomic batch (nats-server 2.12+: Nats-Batch-Id,
// Nats-Batch-Sequence and Nats-Batch-Commit on the last message, see
// store.commitOnce): len(rs) messages in, one ack out, instead of a
// request and its ack per job. Each put carries the two checks of a
// single submission (see write): its message id is the job id (refused
// within the duplicate window: checkMsgHeadersPreClusteredProposal in
// nats-server v2.15.2 server/jetstream_batching.go checks Nats-Msg-Id for
// every message of an atomic batch, against the stream's window and the
// batch's own ids, answering 10201), and it is conditional on d.<id>
// having no message (the same function checks
// Nats-Expected-Last-Subject-Sequence with
// Nats-Expected-Last-Subject-Sequence-Subject per message, against the
// store and the batch's earlier checks). So the ledger and the window are
// checked for the whole batch in the batch's one round trip, with no Get.
//
// A batch fails as a whole and the server does not say which message
// failed: on a duplicate id (10201) or a completed job (wrong last
// sequence), writeBatch falls back to one write per record, which sorts
// the duplicates from the others. That costs about 2 messages a job more
// than the batch, only for batches that hold a duplicate.
func (w *Worker) writeBatch(rs []*record) []submitReply {
	ctx := context.Background()
	ops := make([]op, len(rs))
	for k, r := range rs {
		data, _ := json.Marshal(r)
		ops[k] = submitOp(w.name, r.ID, data)
	}
	var revs []uint64
	retried := false
	err := retryWithin(ctx, w.cfg.retry, func(attempt int) error {
		retried = attempt > 0
		var err error
		revs, err = w.st.commitOnce(ctx, ops)
		return err
	})
	out := make([]submitReply, len(rs))
	if refused(err) {
		// One write per record, a few at once; write lowers incoming.
		// After a retry, a duplicate may be the batch's own first
		// attempt, applied although its answer was lost.
		fewAtOnce(len(rs), func(k int) {
			out[k] = w.write(rs[k], retried)
			if retried && out[k].Code == ErrDuplicateJob.Code {
				out[k].Code = ErrMaybeStored.Code
			}
		})
		return out
	}
	w.mu.Lock()
	w.incoming -= len(rs)
	if err == nil {
		for k, r := range rs {
			w.adoptLocked(&entry{id: r.ID, rev: revs[k], rec: r}, false)
			out[k] = submitReply{Worker: w.name}
		}
	}
	w.mu.Unlock()
	w.signal()
	if err != nil {
		code := "server"
		if errors.Is(err, ErrUnavailable) {
			code = ErrUnavailable.Code
		}
		for k := range out {
			out[k] = submitReply{Code: code, Text: strings.TrimPrefix(err.Error(), "cluster: ")}
		}
		return out
	}
	poke(w.kick)
	return out
}

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// Chunking. A batch submission is one request to one worker, which stores
// its jobs' records in one atomic batch; a call is cut into chunks that fit
// both: at most maxChunkJobs jobs (the servers take at most 1000 messages
// in an atomic batch, streamDefaultMaxAtomicBatchSize in nats-server
// v2.15.2 server/stream.go; a smaller chunk also keeps the worker's answer
// well within WithRequestTimeout when it has to fall back to one write a
// job), and a request of at most the connection's maximum payload (1 MiB
// by default) less chunkHeadroom for the subject, headers and JSON.
const (
	maxChunkJobs  = 256
	chunkHeadroom = 4 << 10
)

// batchHeader marks a submission request as a batch (batchRequest); a
// single submission is a bare record on the same subjects.
const batchHeader = "Steal-Batch"

// batchRequest is the body of a batch submission.
type batchRequest struct {
	Jobs []record `json:"jobs"`
}

// SubmitBatch queues jobs, in as few messages as it can: the jobs are
// sent to a worker in chunks (up to 256 jobs, and at most the server's
// maximum message size, 1 MiB by default), one request each, and the
// worker stores each chunk's records in one atomic batch and queues them.
// Without To, each chunk goes to a worker the servers pick; the workers
// then balance the jobs by stealing, as with Submit. The Cost option
// applies to the jobs whose Cost is 0.
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
//   - ErrDuplicateJob: an id already queued, running or completed (as
//     Submit detects them, see Limits), or one that an earlier job of the
//     same call has: the first of them is the one submitted. Nothing was
//     changed for that job.
//   - an error wrapping ErrMaybeStored: an attempt's answer was lost and
//     the retry was refused as a duplicate: the job is stored, by this
//     call or by another submission of the id.
//   - ErrNoWorkers, ErrClosed (the worker was closing): not stored.
//   - anything else (ctx ended, an error wrapping ErrUnavailable after
//     the retry window, a server error): the outcome is unknown. The
//     job may be stored; submitting it again is safe, since a submission
//     is deduplicated by id.
//
// Chunks are sent one after the other, each retried as Submit is when
// the worker's answer does not come within WithRequestTimeout (a chunk
// of large jobs may need a longer one). Chunks are independent: some may
// be queued and others not. Within a chunk every job is stored, or none,
// unless one of its ids is a duplicate: the worker then stores the others
// one by one. When ctx ends, chunks not yet sent get ctx.Err() (not
// stored), and the chunk sent but not answered gets the last attempt's
// error (unknown). SubmitBatch may be called from several goroutines at
// once, as Submit.
//
// The jobs of a chunk enter the worker's deque in their order in jobs,
// as successive Submits to that worker would, unless the chunk held a
// duplicate; without To, chunks may go to different workers.
func (c *Client) SubmitBatch(ctx context.Context, jobs []BatchJob, opts ...SubmitOption) error {
	var so submitOpts
	for _, o := range opts {
		o(&so)
	}
	subj := c.cfg.subject("submit")
	if so.to != "" {
		if !validName(so.to) {
			return fmt.Errorf("SubmitBatch: To(%q): %w", so.to, ErrInvalidName)
		}
		subj = c.cfg.subject("w." + so.to + ".submit")
	}
	recs := make([]record, len(jobs))
	for i, j := range jobs {
		recs[i] = record{ID: j.ID, Type: j.Type, Payload: j.Payload, Cost: j.Cost}
		if recs[i].Cost == 0 {
			recs[i].Cost = so.cost
		}
		if err := recs[i].check(c.cfg.maxPayload); err != nil {
			return fmt.Errorf("SubmitBatch: job %d (id %q): %w", i, truncID(j.ID), err)
		}
	}
	errs := make([]error, len(jobs))
	failed := false
	// Repeated ids: the first is submitted, the others refused here.
	var send []int // indexes of jobs to send
	seen := make(map[string]struct{}, len(jobs))
	for i := range recs {
		if _, dup := seen[recs[i].ID]; dup {
			errs[i], failed = ErrDuplicateJob, true
			continue
		}
		seen[recs[i].ID] = struct{}{}
		send = append(send, i)
	}
	// One chunk at a time: a worker takes the requests on a subject one
	// after the other, so chunks sent at once to one worker (To, or the
	// servers' pick) would wait behind each other, their time counting
	// against WithRequestTimeout. Calls of SubmitBatch may run at once.
	for _, ch := range c.chunk(recs, send) {
		var out []error
		if err := ctx.Err(); err != nil {
			out = make([]error, len(ch.idx))
			for k := range out {
				out[k] = err
			}
		} else {
			out = c.submitChunk(ctx, subj, ch)
		}
		for k, i := range ch.idx {
			if out[k] != nil {
				errs[i], failed = out[k], true
			}
		}
	}
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

// chunk is a part of a SubmitBatch call: one request.
type chunk struct {
	idx  []int  // the jobs' indexes in the call
	data []byte // the request body
}

// chunk cuts the jobs of recs named by send into chunks of at most
// maxChunkJobs jobs and a body of at most the connection's maximum
// payload less chunkHeadroom. A job too large to fit alone is sent alone
// (records are at most 512 KiB of payload, well within 1 MiB).
func (c *Client) chunk(recs []record, send []int) []chunk {
	limit := int(c.nc.MaxPayload()) - chunkHeadroom
	if limit <= 0 {
		limit = 1<<20 - chunkHeadroom
	}
	var out []chunk
	var cur chunk
	var body []byte
	flush := func() {
		if len(cur.idx) == 0 {
			return
		}
		cur.data = append(append([]byte(`{"jobs":[`), body...), ']', '}')
		out = append(out, cur)
		cur, body = chunk{}, nil
	}
	for _, i := range send {
		b, _ := json.Marshal(&recs[i])
		if len(cur.idx) == maxChunkJobs || len(cur.idx) > 0 && len(body)+1+len(b)+16 > limit {
			flush()
		}
		if len(cur.idx) > 0 {
			body = append(body, ',')
		}
		body = append(body, b...)
		cur.idx = append(cur.idx, i)
	}
	flush()
	return out
}

// submitChunk sends one chunk, retrying as Submit does, and returns an
// error per job of the chunk (nil: queued).
func (c *Client) submitChunk(ctx context.Context, subj string, ch chunk) []error {
	out := make([]error, len(ch.idx))
	var codes []string
	var text string
	var lost error
	err := retry(ctx, func(attempt int) error {
		var err error
		codes, text, err = c.submitChunkOnce(ctx, subj, ch.data, len(ch.idx))
		if err == nil && attempt > 0 {
			for k, code := range codes {
				if code == ErrDuplicateJob.Code {
					codes[k] = ErrMaybeStored.Code
				}
			}
		}
		if err != nil {
			lost = err
		}
		return err
	})
	if err != nil {
		for k := range out {
			out[k] = err
		}
		return out
	}
	for k, code := range codes {
		switch code {
		case "":
		case ErrMaybeStored.Code:
			if lost == nil { // the worker's own write was retried
				out[k] = fmt.Errorf("%w: the worker's write was retried and refused as a duplicate", ErrMaybeStored)
			} else {
				out[k] = fmt.Errorf("%w: an attempt's answer was lost (%v) and the retry was refused as a duplicate", ErrMaybeStored, lost)
			}
		default:
			out[k] = codeError(code, text)
		}
	}
	return out
}

// codeError is the sentinel of a refusal's code, or an *Error of its own.
func codeError(code, text string) error {
	for _, e := range []*Error{ErrDuplicateJob, ErrClosed, ErrInvalidID, ErrInvalidType, ErrPayloadTooLarge, ErrMalformedJob} {
		if e.Code == code {
			return e
		}
	}
	if code == ErrUnavailable.Code {
		return fmt.Errorf("%w: %s", ErrUnavailable, text)
	}
	if text == "" {
		text = "refused: " + code
	}
	return &Error{code, text}
}

// submitChunkOnce sends one chunk and waits WithRequestTimeout for the
// worker's answer: one code per job, or an error for them all. No
// responders is final here, as in submitOnce.
func (c *Client) submitChunkOnce(ctx context.Context, subj string, data []byte, n int) (codes []string, text string, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout)
	defer cancel()
	m := &nats.Msg{Subject: subj, Header: nats.Header{}, Data: data}
	m.Header.Set(batchHeader, "1")
	rep, err := c.nc.RequestMsgWithContext(ctx, m)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, "", ErrNoWorkers
	}
	if err != nil {
		return nil, "", err
	}
	var r submitReply
	if err := json.Unmarshal(rep.Data, &r); err != nil {
		return nil, "", &Error{"server", "unreadable submit reply"}
	}
	if r.Code != "" {
		if r.Code == ErrInvalidID.Code && len(r.Codes) == 0 {
			// A worker that predates batches read the request as one
			// record without an id.
			return nil, "", &Error{"server", "the worker does not take batch submissions"}
		}
		return nil, "", codeError(r.Code, r.Text)
	}
	if len(r.Codes) != n {
		return nil, "", &Error{"server", "batch reply answers " + strconv.Itoa(len(r.Codes)) + " of " + strconv.Itoa(n) + " jobs"}
	}
	return r.Codes, r.Text, nil
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
		r.Attempt, r.Hops = 0, 0
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
		ops[k] = op{key: qKey(w.name, r.ID), value: data, check: true, expect: 0, guard: dKey(r.ID), msgID: r.ID}
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
	if errors.Is(err, errDupMsg) || errors.Is(err, errConflict) {
		// One write per record, a few at once; write lowers incoming.
		// After a retry, a duplicate may be the batch's own first
		// attempt, applied although its answer was lost.
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for k, r := range rs {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				out[k] = w.write(r, retried)
				if retried && out[k].Code == ErrDuplicateJob.Code {
					out[k].Code = ErrMaybeStored.Code
				}
			})
		}
		wg.Wait()
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

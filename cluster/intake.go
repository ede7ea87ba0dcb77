package cluster

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// submitReply answers a submission: empty code means queued.
type submitReply struct {
	Worker string `json:"worker,omitempty"`
	Code   string `json:"code,omitempty"`
	Text   string `json:"text,omitempty"`
	// Codes answers a batch submission (see batch.go), one per job in
	// the order of the request: empty means queued. Code is then set
	// only when the whole request was refused.
	Codes []string `json:"codes,omitempty"`
}

func respond(m *nats.Msg, r submitReply) {
	b, _ := json.Marshal(r)
	m.Respond(b)
}

func refuse(m *nats.Msg, e *Error) { respond(m, submitReply{Code: e.Code, Text: e.Text}) }

// onSubmit queues a submitted job at the back of the deque (where outside
// work enters, as cluster.Inject does), after writing its record: the reply
// is sent only once the record is durable. A job id already completed, or
// seen by the servers within their duplicate window, is refused as a
// duplicate and changes nothing.
func (w *Worker) onSubmit(m *nats.Msg) {
	if m.Header.Get(batchHeader) != "" {
		w.onSubmitBatch(m)
		return
	}
	var r record
	if err := json.Unmarshal(m.Data, &r); err != nil {
		refuse(m, &Error{ErrMalformedJob.Code, "malformed submission: " + err.Error()})
		return
	}
	if err := r.check(w.cfg.maxPayload); err != nil {
		refuse(m, err.(*Error))
		return
	}
	r.fresh()
	w.mu.Lock()
	_, dup := w.known[r.ID]
	if w.closing || dup {
		w.mu.Unlock()
		refuse(m, map[bool]*Error{true: ErrDuplicateJob, false: ErrClosed}[dup])
		return
	}
	w.enterLocked()
	w.incoming++
	w.mu.Unlock()
	rep := w.write(&r, false)
	respond(m, rep)
}

// write stores a submitted record and queues it; incoming was raised by
// the caller so the worker counts as busy throughout.
//
// The ledger check is part of the put: the put is conditional on d.<id>
// having no message (Nats-Expected-Last-Subject-Sequence 0 on the subject
// d.<id>, the header pair complete.go's completion and a spawn's guard use),
// so a completed id is refused by the server in the same round trip that
// would store it, instead of a Get of d.<id> before the put (2 messages a
// job fewer, and no window between the read and the write). d.<id> is
// never deleted (complete.go writes it once, must not exist), so "no
// message" means "not completed". The id is also the put's message id:
// an id stored within the servers' duplicate window is refused as well.
//
// maybeOurs says that an earlier write of this record may have been
// applied although its answer was lost (a batch whose commit was retried):
// a refusal as a duplicate then looks for the record under this worker's
// name, as a retried put does.
func (w *Worker) write(r *record, maybeOurs bool) submitReply {
	ctx := context.Background()
	data, _ := json.Marshal(r)
	rev, err := w.st.put(ctx, qKey(w.name, r.ID), data, r.ID, dKey(r.ID), 0)
	if errors.Is(err, errConflict) {
		err = errDupMsg // d.<id> exists: completed
	} else if errors.Is(err, errDupRetried) || maybeOurs && errors.Is(err, errDupMsg) {
		rev, err = w.ownRecord(ctx, r.ID) // our first attempt may have been applied
	}
	w.mu.Lock()
	w.incoming--
	if err == nil {
		w.adoptLocked(&entry{id: r.ID, rev: rev, rec: r}, false)
	}
	w.mu.Unlock()
	w.signal()
	switch {
	case errors.Is(err, errDupMsg):
		return submitReply{Code: ErrDuplicateJob.Code, Text: ErrDuplicateJob.Text}
	case err != nil:
		return submitReply{Code: "server", Text: err.Error()}
	}
	poke(w.kick)
	return submitReply{Worker: w.name}
}

// onState answers an idle-check wave with the worker's state.
func (w *Worker) onState(m *nats.Msg) {
	w.mu.Lock()
	b, _ := json.Marshal(w.stateLocked())
	w.mu.Unlock()
	m.Respond(b)
}

// ownRecord returns the revision of the record of id under this worker's
// name, or errDupMsg when there is none: after a retried write refused as a
// duplicate, the record tells whether the first attempt was applied here.
func (w *Worker) ownRecord(ctx context.Context, id string) (uint64, error) {
	e, err := w.st.get(ctx, qKey(w.name, id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, errDupMsg
	}
	if err != nil {
		return 0, err
	}
	return e.Revision(), nil
}

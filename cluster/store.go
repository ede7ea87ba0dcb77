package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// store is the durable state of one cluster: the jobs bucket (q.<owner>.<id>
// live jobs, d.<id> completions) and the workers bucket (leases).
type store struct {
	cfg     config
	nc      *nats.Conn
	js      jetstream.JetStream
	jobs    jetstream.KeyValue
	workers jetstream.KeyValue
	jobsPfx string        // "$KV.<jobs bucket>."
	lease   time.Duration // the workers bucket's TTL
	dedup   time.Duration // the jobs stream's duplicate window
	// ttlInBatch: the jobs stream is in one server's memory, and a
	// batch's deletes expire by themselves (see opMsg).
	ttlInBatch bool
}

func (c *config) jobsBucket() string    { return "steal_" + c.cluster + "_jobs" }
func (c *config) workersBucket() string { return "steal_" + c.cluster + "_workers" }
func (c *config) subject(s string) string {
	return "steal." + c.cluster + "." + s
}

func qKey(owner, id string) string { return "q." + owner + "." + id }
func dKey(id string) string        { return "d." + id }

// openStore creates the buckets when missing, or opens them as they are.
func openStore(ctx context.Context, nc *nats.Conn, cfg config) (*store, error) {
	v, err := serverVersion(ctx, nc)
	if err != nil {
		return nil, err
	}
	if !versionAtLeast(v, 2, 12) {
		return nil, ErrServerTooOld
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	s := &store{cfg: cfg, nc: nc, js: js, jobsPfx: "$KV." + cfg.jobsBucket() + "."}
	st := jetstream.MemoryStorage
	if cfg.storage == FileStorage {
		st = jetstream.FileStorage
	}
	if s.jobs, err = s.bucket(ctx, jetstream.KeyValueConfig{
		Bucket: cfg.jobsBucket(), History: 1, Storage: st, Replicas: cfg.replicas,
	}); err != nil {
		return nil, err
	}
	if err := s.enableBatches(ctx); err != nil {
		return nil, err
	}
	if s.workers, err = s.bucket(ctx, jetstream.KeyValueConfig{
		Bucket: cfg.workersBucket(), History: 1, Storage: jetstream.MemoryStorage,
		Replicas: cfg.replicas, TTL: cfg.lease, LimitMarkerTTL: cfg.lease,
	}); err != nil {
		return nil, err
	}
	if cfg.wrapWorkers != nil {
		s.workers = cfg.wrapWorkers(s.workers)
	}
	status, err := s.workers.Status(ctx)
	if err != nil {
		return nil, err
	}
	s.lease = status.TTL()
	if s.lease < minLease || s.lease > maxLease {
		return nil, &Error{ErrBadBucket.Code, fmt.Sprintf("workers bucket's TTL is %v, not 1s to 1h", s.lease)}
	}
	return s, nil
}

// reopenWorkers creates the workers bucket again, as openStore made it,
// after a server restart lost it (it is kept in memory). The handle in
// s.workers names the bucket, not one stream, so it serves the new one.
func (s *store) reopenWorkers(ctx context.Context) error {
	_, err := s.bucket(ctx, jetstream.KeyValueConfig{
		Bucket: s.cfg.workersBucket(), History: 1, Storage: jetstream.MemoryStorage,
		Replicas: s.cfg.replicas, TTL: s.lease, LimitMarkerTTL: s.lease,
	})
	return err
}

// bucket opens the bucket if it exists (whatever its settings: the first
// process to create it decides), else creates it.
func (s *store) bucket(ctx context.Context, c jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := s.js.KeyValue(ctx, c.Bucket)
	if err == nil {
		return kv, nil
	}
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, err
	}
	kv, err = s.js.CreateKeyValue(ctx, c)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return s.js.KeyValue(ctx, c.Bucket) // another process won the race
	}
	return kv, err
}

// enableBatches turns on atomic batch publish and per-message TTLs on the
// jobs bucket's stream: steals, takeovers and completions are batches.
func (s *store) enableBatches(ctx context.Context) error {
	str, err := s.js.Stream(ctx, "KV_"+s.cfg.jobsBucket())
	if err != nil {
		return err
	}
	sc := str.CachedInfo().Config
	s.dedup = sc.Duplicates
	s.ttlInBatch = sc.Storage == jetstream.MemoryStorage && sc.Replicas <= 1
	if sc.AllowAtomicPublish && sc.AllowMsgTTL {
		return nil
	}
	sc.AllowAtomicPublish, sc.AllowMsgTTL = true, true
	_, err = s.js.UpdateStream(ctx, sc)
	return err
}

// op is one write of a batch on the jobs bucket.
type op struct {
	key    string
	value  []byte // nil with del
	del    bool
	expect uint64 // expected revision of key, or of guard when set (when check)
	check  bool
	guard  string // key whose revision is checked instead of key's, optional
	msgID  string // deduplication id, optional
}

// submitOp is the write of a submitted job's record, q.<owner>.<id>: its
// message id is the job id (refused within the servers' duplicate window),
// and it is conditional on d.<id> having no message (refused once the job
// completed; d.<id> is never deleted). Refusals read as refused (below).
func submitOp(owner, id string, data []byte) op {
	return op{key: qKey(owner, id), value: data, check: true, expect: 0, guard: dKey(id), msgID: id}
}

// putSubmitted writes one submitted record (submitOp) as a plain put,
// once, and returns its revision.
func (s *store) putSubmitted(ctx context.Context, owner, id string, data []byte) (uint64, error) {
	return s.putOnce(ctx, qKey(owner, id), data, id, dKey(id), 0)
}

// stopWatch stops kw, waiting for the servers to delete its consumer
// until they answer, ctx ends or the request timeout passes, whichever
// comes first. Stop itself waits up to 5 s for that answer (the default
// of the JetStream context that nats.go's key-value watch is built on,
// which no option reaches), whatever WithRequestTimeout says: without a
// server, a Wait returned 5 s after its ctx ended, and a Close took as
// much longer per watch. A delete left unanswered ends on its own, within
// those 5 s or when the connection closes; the servers drop an ephemeral
// consumer without interest by themselves.
func (s *store) stopWatch(ctx context.Context, kw jetstream.KeyWatcher) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		kw.Stop()
	}()
	t := time.NewTimer(s.cfg.timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// refused reports whether a write was refused by its checks: a revision
// that moved (errConflict) or a message id seen within the duplicate
// window (errDupMsg). For a submission both mean a duplicate.
func refused(err error) bool { return errors.Is(err, errConflict) || errors.Is(err, errDupMsg) }

// batchAck is the server's answer to a batch commit.
type batchAck struct {
	Seq   uint64    `json:"seq"`
	Count int       `json:"count"`
	Err   *apiError `json:"error"`
}

type apiError struct {
	Code        int    `json:"code"`
	ErrCode     int    `json:"err_code"`
	Description string `json:"description"`
}

// errConflict reports a failed compare-and-swap: some key of the batch is not
// at the expected revision. Nothing of the batch was written.
var errConflict = errors.New("cluster: revision conflict")

// errDupMsg reports a write refused as a duplicate message id.
var errDupMsg = errors.New("cluster: duplicate message id")

// Codes from nats-server: wrong last sequence (10071, 10164 when
// replicated), duplicate message in batch (10201), duplicate conflict;
// see transientCode for the answers that mean "try again".
func classify(e *apiError) error {
	if transientCode(e) {
		return fmt.Errorf("%w: %s (%d)", errUnavailable, e.Description, e.ErrCode)
	}
	switch e.ErrCode {
	case 10071, 10164:
		return errConflict
	case 10201:
		return errDupMsg
	}
	return &Error{ErrServer.Code, "batch refused: " + e.Description + " (" + strconv.Itoa(e.ErrCode) + ")"}
}

// commit writes ops as one atomic batch: all of them or none. It returns the
// stream sequence (= revision) of each op. A failed check gives errConflict.
// Transient errors are retried (see retry) under a new batch id; when an
// earlier attempt was applied but its answer lost, the retry fails its
// revision check and gives errConflict, which every caller treats as "the
// records are no longer where this batch expected them".
func (s *store) commit(ctx context.Context, ops []op) (revs []uint64, err error) {
	return s.commitWithin(ctx, ops, s.cfg.retry)
}

// commitWithin is commit, retrying for window instead.
func (s *store) commitWithin(ctx context.Context, ops []op, window time.Duration) (revs []uint64, err error) {
	err = retryWithin(ctx, window, func(int) error {
		revs, err = s.commitOnce(ctx, ops)
		return err
	})
	if err == nil && !s.ttlInBatch {
		s.expireDeletes(ops, revs)
	}
	return revs, err
}

// expireDeletes replaces the delete markers a batch wrote with markers that
// expire after 1 s, each conditional on the marker being the key's last
// write still, so that the bucket keeps nothing of finished or moved jobs
// and listing live records costs O(live). They are plain publishes, outside
// any batch, sent without waiting for an answer: a marker that stays (the
// publish lost) costs a listing one entry, nothing more. The bucket keeps
// one message per key (History 1), so the new marker removes the old.
func (s *store) expireDeletes(ops []op, revs []uint64) {
	for i := range ops {
		if !ops[i].del {
			continue
		}
		m := &nats.Msg{Subject: s.jobsPfx + ops[i].key, Header: nats.Header{}}
		m.Header.Set("KV-Operation", "DEL")
		m.Header.Set(jetstream.MsgTTLHeader, "1s")
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(revs[i], 10))
		s.nc.PublishMsg(m)
	}
}

// maxBatchesInFlight caps the atomic batches this process has open at once,
// whatever the number of its workers and slots. A stream takes 50 at once
// (streamDefaultMaxAtomicBatchInflightPerStream, server/stream.go in
// nats-server v2.15.2) and refuses more with 10210, which commit retries
// with backoff; the cap keeps one process from causing that on its own.
const maxBatchesInFlight = 8

// batchSlots holds one token per atomic batch this process has open.
var batchSlots = make(chan struct{}, maxBatchesInFlight)

func (s *store) commitOnce(ctx context.Context, ops []op) ([]uint64, error) {
	select {
	case batchSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-batchSlots }()
	bid := nuid.Next()
	for i := range ops {
		m := s.opMsg(&ops[i])
		m.Header.Set("Nats-Batch-Id", bid)
		m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		if i < len(ops)-1 {
			if err := s.nc.PublishMsg(m); err != nil {
				return nil, err
			}
			continue
		}
		m.Header.Set("Nats-Batch-Commit", "1")
		return s.finish(ctx, m, len(ops))
	}
	return nil, nil
}

func (s *store) finish(ctx context.Context, m *nats.Msg, n int) ([]uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	reply, err := s.nc.RequestMsgWithContext(ctx, m)
	if err != nil {
		return nil, err
	}
	var ack batchAck
	if err := json.Unmarshal(reply.Data, &ack); err != nil {
		return nil, &Error{ErrServer.Code, "unreadable batch ack: " + err.Error()}
	}
	if ack.Err != nil {
		return nil, classify(ack.Err)
	}
	if ack.Count != n || ack.Seq < uint64(n) {
		return nil, &Error{ErrServer.Code, "batch ack counts " + strconv.Itoa(ack.Count) + " of " + strconv.Itoa(n)}
	}
	// A batch is stored as consecutive sequences, the commit last.
	revs := make([]uint64, n)
	for i := range revs {
		revs[i] = ack.Seq - uint64(n-1-i)
	}
	return revs, nil
}

func (s *store) opMsg(o *op) *nats.Msg {
	m := &nats.Msg{Subject: s.jobsPfx + o.key, Header: nats.Header{}, Data: o.value}
	if o.check {
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(o.expect, 10))
	}
	if o.guard != "" {
		m.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, s.jobsPfx+o.guard)
	}
	if o.del {
		// No message TTL here: on nats-server v2.15.2 a delete that
		// carries one inside an atomic batch on file storage comes back
		// as the record it deleted after the server is killed (SIGKILL)
		// and restarted (TestServerKilledKeepsJobsDone). expireDeletes
		// makes the marker expire once the batch is stored. A stream
		// kept in one server's memory has no disk to bring anything back
		// from: its deletes carry the TTL at once (ttlInBatch), which
		// saves the second publish and its delivery to the owner's watch.
		m.Header.Set("KV-Operation", "DEL")
		if s.ttlInBatch {
			m.Header.Set(jetstream.MsgTTLHeader, "1s")
		}
	}
	if o.msgID != "" {
		m.Header.Set(jetstream.MsgIDHeader, o.msgID)
	}
	return m
}

// errDupRetried is errDupMsg on a retry: the duplicate may be this put's own
// earlier attempt, applied although its answer was lost.
var errDupRetried = fmt.Errorf("%w after a retry", errDupMsg)

// put writes one record, deduplicated by id. With guard set, the write is
// also conditional on guardKey still being at guardRev (a spawn is fenced by
// its parent's record). It returns the new revision; errDupMsg when the
// server has seen the id within its duplicate window, errDupRetried when
// that happens on a retry. Transient errors are retried (see retry).
func (s *store) put(ctx context.Context, key string, val []byte, msgID, guardKey string, guardRev uint64) (rev uint64, err error) {
	err = retryWithin(ctx, s.cfg.retry, func(attempt int) error {
		rev, err = s.putOnce(ctx, key, val, msgID, guardKey, guardRev)
		if attempt > 0 && errors.Is(err, errDupMsg) {
			return errDupRetried
		}
		return err
	})
	return rev, err
}

func (s *store) putOnce(ctx context.Context, key string, val []byte, msgID, guardKey string, guardRev uint64) (uint64, error) {
	m := &nats.Msg{Subject: s.jobsPfx + key, Header: nats.Header{}, Data: val}
	m.Header.Set(jetstream.MsgIDHeader, msgID)
	if guardKey != "" {
		m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(guardRev, 10))
		m.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, s.jobsPfx+guardKey)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	ack, err := s.js.PublishMsg(ctx, m)
	if err != nil {
		var ae *jetstream.APIError
		if errors.As(err, &ae) {
			return 0, classify(&apiError{Code: ae.Code, ErrCode: int(ae.ErrorCode), Description: ae.Description})
		}
		return 0, err
	}
	if ack.Duplicate {
		return 0, errDupMsg
	}
	return ack.Sequence, nil
}

// get reads key, retrying transient errors; ErrKeyNotFound is final.
func (s *store) get(ctx context.Context, key string) (e jetstream.KeyValueEntry, err error) {
	err = retryWithin(ctx, s.cfg.retry, func(int) error {
		actx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
		defer cancel()
		e, err = s.jobs.Get(actx, key)
		return err
	})
	return e, err
}

// done reads the completion of id, or nil when there is none.
func (s *store) done(ctx context.Context, id string) (*outcome, error) {
	e, err := s.get(ctx, dKey(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var o outcome
	if err := json.Unmarshal(e.Value(), &o); err != nil {
		return nil, &Error{"malformed", "unreadable completion of " + id}
	}
	return &o, nil
}

// keys lists the live keys matching filter (e.g. "q.>"). The listing is a
// consumer walk, not a snapshot: a key written or moved while it runs may be
// missed, which is why the idle check brackets it with two waves.
func (s *store) keys(ctx context.Context, filter string) ([]string, error) {
	return s.listKeys(ctx, s.jobs, filter)
}

// listKeys lists the live keys of kv matching filter, sorted, each once,
// within the request timeout. It reads them from a watch of its own,
// stopped by stopWatch: nats.go's KeyValue.Keys and ListKeysFiltered stop
// theirs before they return, waiting up to 5 s for the servers to delete
// its consumer, so that a listing that ended as the servers went away
// held its caller 5 s past ctx and the request timeout.
func (s *store) listKeys(ctx context.Context, kv jetstream.KeyValue, filter string) ([]string, error) {
	var out []string
	err := s.readWatch(ctx, func(ctx context.Context) (jetstream.KeyWatcher, error) {
		return kv.Watch(ctx, filter, jetstream.IgnoreDeletes(), jetstream.MetaOnly())
	}, func(e jetstream.KeyValueEntry) { out = append(out, e.Key()) })
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// readWatch opens a watch with open and calls f for each of its initial
// values, all within the request timeout, then stops the watch with
// stopWatch within what is left of it. Every one-off read of a bucket
// (keys, a worker's records, the leases) goes through it.
func (s *store) readWatch(ctx context.Context, open func(context.Context) (jetstream.KeyWatcher, error), f func(jetstream.KeyValueEntry)) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	kw, err := open(ctx)
	if err != nil {
		return err
	}
	defer s.stopWatch(ctx, kw)
	return initialValues(ctx, kw, f)
}

// initialValues calls f for each entry a watcher delivers until the nil
// that ends its initial values, or returns ctx's error if ctx ends first.
func initialValues(ctx context.Context, kw jetstream.KeyWatcher, f func(jetstream.KeyValueEntry)) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-kw.Updates():
			if e == nil {
				return nil
			}
			f(e)
		}
	}
}

// connectWait bounds serverVersion's wait for a (re)connection when ctx
// has no deadline, as the JetStream API bounds its requests by default.
const connectWait = 5 * time.Second

// serverVersion returns the version of the server nc is connected to. A
// connection that is (re)connecting has no server yet: it waits for one,
// polling, until ctx ends (connectWait without a deadline), so that a
// reconnect in progress is not taken for a server too old.
func serverVersion(ctx context.Context, nc *nats.Conn) (string, error) {
	if nc == nil {
		return "", fmt.Errorf("%w: the *nats.Conn is nil", ErrNotConnected)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, connectWait)
		defer cancel()
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if v := nc.ConnectedServerVersion(); v != "" {
			return v, nil
		}
		if nc.IsClosed() {
			return "", fmt.Errorf("%w: %w", ErrNotConnected, nats.ErrConnectionClosed)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w (%v): %w", ErrNotConnected, nc.Status(), ctx.Err())
		case <-tick.C:
		}
	}
}

// versionAtLeast reports whether a server version "major.minor.patch[-x]"
// is at least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(f[0])
	mi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

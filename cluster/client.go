package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Client submits jobs to a cluster and waits for their results. Make one
// with NewClient; any number of goroutines may call its methods at once.
// It starts no goroutine and holds nothing to release, so it has no Close:
// the connection it was given stays the caller's, and once that is closed
// the client's calls fail.
type Client struct {
	cfg    config
	nc     *nats.Conn
	st     *store
	roster roster        // the live workers, for submissions
	deal   atomic.Uint64 // where the next batch's jobs start round the workers (see targets)
}

// NewClient opens (or creates) the cluster's buckets over nc, as
// Worker.Start does. It takes the same options as NewWorker and checks them
// all, though those about a worker change nothing here: an invalid one
// gives ErrInvalidName (WithCluster) or ErrInvalidOption. It returns an
// error wrapping ErrNotConnected for a nil, closed or unconnected nc,
// ErrServerTooOld, an ErrBadBucket for a bucket it cannot work with, or
// the servers' error. ctx bounds this work, not the client's life.
func NewClient(ctx context.Context, nc *nats.Conn, opts ...Option) (*Client, error) {
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, nc, cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, nc: nc, st: st}
	c.deal.Store(rand.Uint64()) // clients start dealing at different workers
	return c, nil
}

// SubmitOption refines one submission.
type SubmitOption func(*submitOpts)

type submitOpts struct {
	to    string
	toSet bool // To was given: an empty name is invalid, not "any worker"
	cost  int64
}

// To places the job on the named worker's deque instead of on a worker the
// servers pick (any of them, at random). An invalid name, the empty one
// included, makes the submission fail with ErrInvalidName.
func To(worker string) SubmitOption {
	return func(o *submitOpts) { o.to, o.toSet = worker, true }
}

// Cost attaches a cost hint, handed to the handler as Job.Cost.
func Cost(c int64) SubmitOption { return func(o *submitOpts) { o.cost = c } }

// Submit queues a job: it writes the job's record under the name of a
// live worker (To's, or one picked at random from the workers bucket, read
// at most every lease/2), whose watch of its records queues it; idle
// workers then balance the jobs by stealing. It returns nil once the
// record is stored: from then on the job is never lost while the servers
// keep their data, and it completes exactly once (its handler may run more
// than once after a crash). A record placed on a worker that left meanwhile
// is taken over by a survivor. Invalid input gives ErrInvalidID,
// ErrInvalidType, ErrPayloadTooLarge or ErrInvalidName; an id already
// completed, or submitted within the servers' duplicate window (2 minutes
// by default), gives ErrDuplicateJob; no live worker (or none named To's
// name) in the client's view of the workers, at most lease/2 old, gives
// ErrNoWorkers. None of these changes anything. It costs one
// JetStream write and its answer.
//
// A transient error (no answer within WithRequestTimeout, as while the
// servers elect a new leader, or a connection that is reconnecting) is
// retried as Spawn's writes are: with backoff from 50 ms to 1 s, until
// ctx ends, when Submit returns the last error, or 30 s pass, when it
// returns an error wrapping ErrUnavailable and the last error. Either way
// the outcome is unknown, and submitting again with the same id is safe:
// a submission is deduplicated by its id. For the same reason a retry
// after an attempt whose answer was lost may be refused as a duplicate,
// because that attempt stored the job or because another submission of
// the id did; Submit cannot tell which, and returns an error wrapping
// ErrMaybeStored.
func (c *Client) Submit(ctx context.Context, id, typ string, payload []byte, opts ...SubmitOption) error {
	var so submitOpts
	for _, o := range opts {
		o(&so)
	}
	if so.toSet && !validName(so.to) { // options first, as SubmitBatch
		return ErrInvalidName
	}
	r := &record{ID: id, Type: typ, Payload: payload, Cost: so.cost}
	if err := r.check(c.cfg.maxPayload); err != nil {
		return err
	}
	data, _ := json.Marshal(r)
	var owner string // picked once: a retry writes where the lost attempt did
	var lost error   // the last put's error; retry calls again only after a transient one
	sent := false    // a put went out: its answer may have been lost
	return retry(ctx, func(attempt int) error {
		var err error
		if owner == "" {
			if owner, err = c.target(ctx, so.to); err != nil {
				return err
			}
		}
		err = c.submitOnce(ctx, owner, r.ID, data)
		if sent && errors.Is(err, ErrDuplicateJob) {
			return fmt.Errorf("%w: job %s: an attempt's answer was lost (%v) and the retry was refused as a duplicate", ErrMaybeStored, id, lost)
		}
		lost, sent = err, true
		return err
	})
}

// ErrMaybeStored is returned, wrapped, by Submit when an attempt's answer
// was lost and its retry was refused as a duplicate: the job with that id
// is stored, by the lost attempt or by another submission of the id.
var ErrMaybeStored = &Error{"maybe_stored", "job stored, by this submission or another of its id"}

// submitOnce writes the record data of job id under owner's name: one
// JetStream put, which the servers refuse when d.<id> exists (the job
// completed) or when they saw the id within their duplicate window, both
// as ErrDuplicateJob. The owner's watch of its records queues the job.
func (c *Client) submitOnce(ctx context.Context, owner, id string, data []byte) error {
	_, err := c.st.putSubmitted(ctx, owner, id, data)
	if refused(err) {
		return ErrDuplicateJob
	}
	return err
}

// Result is a job's recorded completion.
type Result struct {
	ID      string
	Worker  string // the worker whose completion was recorded
	Attempt int    // takeovers before this run
	Hops    int    // steals before this run
	Value   []byte // the handler's result, when Err is nil
	Err     error  // a *JobError when the job failed
}

// Wait blocks until job id has a recorded completion and returns it. Its
// error is about waiting: ErrInvalidID for an invalid id; ctx's error
// once ctx ends (while the watch is being started, the last attempt's);
// nats.ErrConnectionClosed once the connection is closed; ErrClosed if
// the watch ended with the connection still open; or an error wrapping
// ErrUnavailable: the servers failed to start the watch through the whole
// retry window, as the worker's writes are retried. A failed job is a
// Result whose Err is a *JobError. Any goroutine may call it, any number
// of times for one id.
func (c *Client) Wait(ctx context.Context, id string) (*Result, error) {
	if !validID(id) {
		return nil, ErrInvalidID
	}
	var kw jetstream.KeyWatcher
	err := retry(ctx, func(int) error {
		var err error
		kw, err = c.st.jobs.Watch(ctx, dKey(id))
		return err
	})
	if err != nil {
		return nil, err
	}
	defer c.st.stopWatch(ctx, kw)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e, ok := <-kw.Updates():
			if !ok {
				if c.nc.IsClosed() {
					// The watch ended with its connection: say so as a
					// Wait begun on a closed connection does (and
					// WaitIdle); ErrClosed is about a closed worker.
					return nil, nats.ErrConnectionClosed
				}
				return nil, ErrClosed
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var o outcome
			if err := json.Unmarshal(e.Value(), &o); err != nil {
				return nil, &Error{"malformed", "unreadable completion of " + id}
			}
			return o.result(), nil
		}
	}
}

func (o *outcome) result() *Result {
	r := &Result{ID: o.ID, Worker: o.Worker, Attempt: o.Attempt, Hops: o.Hops, Value: o.Result}
	if o.Code != "" {
		r.Err = &JobError{ID: o.ID, Code: o.Code, Text: o.Text}
	}
	return r
}

// WaitIdle blocks until the cluster is idle (see Idle), checking every
// 50 ms, or until ctx ends, or the connection is closed (then it returns
// nats.ErrConnectionClosed, as Wait does).
func (c *Client) WaitIdle(ctx context.Context) error {
	for {
		idle, err := c.Idle(ctx)
		if idle {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.nc.IsClosed() {
			// The one error no later check gets past: checking on
			// would spin until ctx ends, for good with no deadline.
			return nats.ErrConnectionClosed
		}
		_ = err // transient: a slow worker, a reconnect; check again
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

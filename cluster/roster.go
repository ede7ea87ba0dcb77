package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A client writes a submitted job's record itself, under the name of a
// live worker, and that worker's watch of its records queues it. The
// client knows the live workers from a roster: the names in the workers
// bucket, read at most every lease/2 while it submits, and read again at
// once when it knows none or is told to place a job on a worker it does
// not know. A name that left since the last read may still be picked: the
// record it gets is found by the survivors' orphan scans, which run when a
// worker leaves and again a lease later (scanAfterLeave), and taken over.

// roster is a client's cached list of live worker names.
type roster struct {
	mu    sync.Mutex
	names []string
	at    time.Time
	lost  time.Time // when a read last found the workers bucket gone
}

// errWorkersLost: the workers bucket is gone, or was lately. It is kept in
// memory, and a restart of the servers loses it with every lease; the
// live workers create it again and register at their next renewal (see
// renew), so a submission meanwhile is retried, as while the servers
// elect a leader, rather than refused.
var errWorkersLost = fmt.Errorf("%w: the workers bucket was lost (a restart of the servers?); waiting for the workers to register again", errUnavailable)

// workerNames returns the live workers' names, read again when the roster
// is older than lease/2 or fresh is set.
func (c *Client) workerNames(ctx context.Context, fresh bool) ([]string, error) {
	r := &c.roster
	r.mu.Lock()
	defer r.mu.Unlock()
	if !fresh && r.at.Add(c.st.lease/2).After(time.Now()) {
		return r.names, nil
	}
	names, err := c.members(ctx)
	if workersGone(err) {
		r.lost = time.Now()
		return nil, errWorkersLost
	}
	if err != nil {
		return nil, err
	}
	r.names, r.at = names, time.Now()
	return names, nil
}

// workersGone reports whether err says the workers bucket does not exist
// (a listing of its keys answers with the nats package's error).
func workersGone(err error) bool {
	for _, e := range []error{jetstream.ErrStreamNotFound, jetstream.ErrBucketNotFound, nats.ErrStreamNotFound, nats.ErrBucketNotFound} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// lately reports whether a read found the workers bucket gone less than a
// lease ago: a live worker may not have registered again yet.
func (c *Client) lately() bool {
	r := &c.roster
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.lost.IsZero() && time.Since(r.lost) < c.st.lease
}

// targets returns the workers n jobs of one batch go to, job by job: all
// to to, or, without it, dealt round the live workers, so that a batch
// needs no stealing to spread. Each batch starts where the client's last
// one ended, so that batches smaller than the cluster (a few bundles)
// spread too. Errors as target's.
func (c *Client) targets(ctx context.Context, to string, n int) ([]string, error) {
	names, i, err := c.pick(ctx, to)
	if err != nil {
		return nil, err
	}
	if to == "" {
		i = int((c.deal.Add(uint64(n)) - uint64(n)) % uint64(len(names)))
	}
	out := make([]string, n)
	for k := range out {
		if to != "" {
			out[k] = to
		} else {
			out[k] = names[(i+k)%len(names)]
		}
	}
	return out, nil
}

// target returns the worker a submission goes to: to, when it names a
// live worker; else a live worker picked at random. ErrNoWorkers when
// there is none (or to names none), by a fresh read of the bucket.
func (c *Client) target(ctx context.Context, to string) (string, error) {
	names, i, err := c.pick(ctx, to)
	if err != nil {
		return "", err
	}
	return names[i], nil
}

// pick returns the live workers' names and the index among them of the
// worker a submission goes to, as target describes.
func (c *Client) pick(ctx context.Context, to string) ([]string, int, error) {
	for fresh := false; ; fresh = true {
		names, err := c.workerNames(ctx, fresh)
		if err != nil {
			return nil, 0, err
		}
		switch i := slices.Index(names, to); {
		case to != "" && i >= 0:
			return names, i, nil
		case to == "" && len(names) > 0:
			return names, rand.N(len(names)), nil
		case fresh && c.lately():
			return nil, 0, errWorkersLost
		case fresh:
			return nil, 0, ErrNoWorkers
		}
	}
}

package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal"
)

// Start opens (or creates) the cluster's buckets, takes the worker's lease,
// subscribes to its subjects and starts running jobs: the records already
// under its name (from an earlier life) first. It returns ErrNameInUse
// when a live worker holds the name, ErrStarted on a second call, and
// leaves nothing running on error.
func (w *Worker) Start(ctx context.Context) error {
	w.mu.Lock()
	if w.started {
		w.mu.Unlock()
		return ErrStarted
	}
	w.started = true
	w.mu.Unlock()
	st, err := openStore(ctx, w.nc, w.cfg)
	if err != nil {
		return err
	}
	w.st = st
	if err := w.register(ctx); err != nil {
		return err
	}
	w.ctx, w.stop = context.WithCancel(context.Background())
	w.jobCtx, w.jobStop = context.WithCancel(context.Background())
	if err := w.subscribe(); err != nil {
		w.unsubscribe()
		w.stop()
		w.jobStop()
		w.deregister()
		return err
	}
	w.pool = steal.New(steal.WithWorkers(w.cfg.slots))
	for _, loop := range []func(){w.heartbeatLoop, w.membersLoop, w.ownLoop, w.scanLoop, w.dispatch} {
		w.wg.Add(1)
		go func() { defer w.wg.Done(); loop() }()
	}
	poke(w.scan)
	return nil
}

// register takes the lease with a create: it fails while another live
// worker holds the name.
func (w *Worker) register(ctx context.Context) error {
	w.mu.Lock()
	data := w.beatLocked()
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, w.cfg.timeout)
	defer cancel()
	rev, err := w.st.workers.Create(ctx, w.name, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return ErrNameInUse
	}
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.inc, w.hbRev = rev, rev
	w.mu.Unlock()
	return nil
}

func (w *Worker) subscribe() error {
	c := &w.cfg
	for _, s := range []struct {
		subj, queue string
		h           nats.MsgHandler
	}{
		{c.subject("w." + w.name + ".steal"), "", w.onSteal},
		{c.subject("w." + w.name + ".submit"), "", w.onSubmit},
		{c.subject("submit"), "workers", w.onSubmit},
		{c.subject("state"), "", w.onState},
	} {
		sub, err := w.nc.QueueSubscribe(s.subj, s.queue, s.h)
		if err != nil {
			return err
		}
		w.subs = append(w.subs, sub)
	}
	return w.nc.Flush()
}

func (w *Worker) unsubscribe() {
	for _, s := range w.subs {
		s.Unsubscribe()
	}
	w.subs = nil
}

// Close stops intake and stealing, cancels the context handlers see, waits
// for running handlers to return, and gives up the lease so that a
// survivor takes over the jobs still queued here at once. A handler that
// returns a result is recorded; one that returns an error after Close
// began is not (its job stays queued for another worker). Close returns
// the pool's error (panics not recovered as job failures: none are
// expected) and is idempotent.
func (w *Worker) Close() error {
	w.mu.Lock()
	if !w.started || w.closing {
		w.mu.Unlock()
		return nil
	}
	w.closing = true
	w.mu.Unlock()
	w.unsubscribe()
	w.jobStop()
	w.stop()
	w.wg.Wait()
	err := w.pool.Close()
	w.deregister()
	return err
}

// deregister deletes the lease if it is still ours, so that watchers see
// the worker leave without waiting for it to expire.
func (w *Worker) deregister() {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.timeout)
	defer cancel()
	w.mu.Lock()
	rev := w.hbRev
	w.mu.Unlock()
	err := w.st.workers.Delete(ctx, w.name, jetstream.LastRevision(rev))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		// The last renewal's ack was lost (Close cancelled it): delete
		// at the current revision if the lease is still this incarnation.
		if rev, state := w.ownLease(ctx); state == leaseOurs {
			w.st.workers.Delete(ctx, w.name, jetstream.LastRevision(rev))
		}
	}
}

// sleep waits d or until the worker closes; it reports false on close.
func (w *Worker) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-w.ctx.Done():
		return false
	}
}

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/steal"
)

// Start opens (or creates) the cluster's buckets, takes the worker's lease,
// subscribes to its subjects and starts running jobs: the records already
// under its name (from an earlier life) first. It returns ErrNameInUse
// when a live worker holds the name, ErrStarted on a second call, ErrClosed
// once Close was called, and otherwise the errors NewClient returns for
// the connection, the servers and the buckets; it leaves nothing running
// on error, and a later Start of the same Worker returns ErrStarted, so a
// program that retries makes a new one with NewWorker. ctx bounds the start only: the worker then serves until Close,
// or until it stops on its own (see Err), whatever becomes of ctx.
func (w *Worker) Start(ctx context.Context) error {
	w.mu.Lock()
	switch {
	case w.closed:
		w.mu.Unlock()
		return ErrClosed
	case w.started:
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
		w.undoStart()
		return err
	}
	loops := []func(){w.heartbeatLoop, w.hintLoop, w.membersLoop, w.ownLoop, w.scanLoop, w.loanLoop, w.dispatch}
	w.mu.Lock()
	if w.closed {
		// Close came while Start ran: it found nothing to stop, so the
		// lease and subscriptions taken since are undone here.
		w.mu.Unlock()
		w.undoStart()
		return ErrClosed
	}
	// The pool and the loops' count are in place before Close can see
	// serving, so that it never waits on a pool or loops that are not.
	w.serving = true
	w.pool = steal.New(steal.WithWorkers(w.cfg.slots))
	w.wg.Add(len(loops))
	w.mu.Unlock()
	for _, loop := range loops {
		go func() { defer w.wg.Done(); loop() }()
	}
	return nil
}

// undoStart gives up what a Start that fails after registering took: its
// subscriptions, contexts and lease.
func (w *Worker) undoStart() {
	w.unsubscribe()
	w.stop()
	w.jobStop()
	w.deregister()
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
		// Our own create, applied although its answer was lost, or
		// another process's registration.
		if rev, err = w.ownRegistration(ctx); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.inc, w.hbRev, w.renewed = rev, rev, time.Now()
	w.mu.Unlock()
	return nil
}

// ownRegistration reads the lease that a create found: if this Worker
// value wrote it (an earlier attempt whose answer was lost) it returns
// its revision, else ErrNameInUse.
func (w *Worker) ownRegistration(ctx context.Context) (uint64, error) {
	e, err := w.st.workers.Get(ctx, w.name)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return 0, errors.New("cluster: lease expired while registering") // try again
	}
	if err != nil {
		return 0, err
	}
	var b beat
	if json.Unmarshal(e.Value(), &b) != nil || b.Proc != w.proc {
		return 0, ErrNameInUse
	}
	return e.Revision(), nil
}

// stopServing stops a worker that must not go on (see Err): it takes no
// new job, unsubscribes, stops its loops and watches, cancels the context
// its handlers see and forgets its deque. It writes nothing: what it held
// belongs to whoever took it over. Close still waits for the handlers.
func (w *Worker) stopServing(err error) {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return
	}
	w.closing, w.err = true, err
	for w.dq.Len() > 0 {
		w.dq.PopFront()
	}
	clear(w.known)
	clear(w.locals)
	w.mu.Unlock()
	w.unsubscribe()
	w.jobStop()
	w.stop()
	w.doneOnce.Do(func() { close(w.done) })
}

func (w *Worker) subscribe() error {
	c := &w.cfg
	for _, s := range []struct {
		subj, queue string
		h           nats.MsgHandler
	}{
		{c.subject("w." + w.name + ".steal"), "", w.onSteal},
		{c.subject("w." + w.name + ".return"), "", w.onReturn},
		{c.subject("w." + w.name + ".loans"), "", w.onLoans},
		{c.subject("w." + w.name + ".hint"), "", w.onHint},
		{c.subject("w." + w.name + ".submit"), "", w.onSubmit},
		{c.subject("submit"), "workers", w.onSubmit},
		{c.subject("state"), "", w.onState},
		{c.subject("hint"), "", w.onHint},
		{c.subject("hint.any"), "thieves", w.onHint},
	} {
		sub, err := w.nc.QueueSubscribe(s.subj, s.queue, s.h)
		if err != nil {
			return err
		}
		w.mu.Lock()
		w.subs = append(w.subs, sub)
		w.mu.Unlock()
	}
	return w.nc.Flush()
}

func (w *Worker) unsubscribe() {
	w.mu.Lock()
	subs := w.subs
	w.subs = nil
	w.mu.Unlock()
	for _, s := range subs {
		s.Unsubscribe()
	}
}

// Close stops intake and stealing, cancels the context handlers see, waits
// up to a lease for the jobs with records it lent to come back from their
// thieves (else a survivor would take their records over and run them
// again), waits for running handlers to return (however long: a handler
// that ignores its context's cancellation holds Close up), and gives up the lease so
// that a survivor takes over the jobs still queued here at once. A handler that
// returns a result is recorded, and Close waits for that write: with no
// server answering, for as long as writes are retried (30 s); one that
// returns an error after Close began is not recorded (its job stays
// queued for another worker). Close returns
// the pool's error (panics not recovered as job failures: none are
// expected; a handler's runtime.Goexit is its job's failure), joined with ErrNotHandedOver when no server answered the
// lease's release. Any goroutine may call it, also after the worker
// stopped serving on its own (Err). A handler may call it too: it then
// returns nil once intake has stopped, and the worker finishes closing
// when the handler has returned (Done tells when; the errors of that end
// are not reported). A second call returns nil at once, without waiting
// for the first to finish (a handler's Close would otherwise wait for
// itself): wait on Done for the end. Before Start, after
// a Start that failed, or during one, Close only marks the worker closed
// (Start then returns ErrClosed) and returns nil.
func (w *Worker) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	if !w.serving {
		// Never started, or its Start failed or is still running: no
		// lease, loop or pool of its own to stop (a Start in progress
		// sees closed and undoes itself). Done is closed all the same,
		// for whoever waits on it.
		w.closed, w.closing = true, true
		w.mu.Unlock()
		w.doneOnce.Do(func() { close(w.done) })
		return nil
	}
	w.closed, w.closing = true, true
	self := w.err != nil // stopped on its own: the lease is not ours
	back, ready := w.unborrowLocked()
	w.mu.Unlock()
	w.jobStop()
	if !self {
		w.awaitLoans() // subscriptions and lease renewals go on meanwhile
	}
	w.unsubscribe()
	w.stop()
	for _, e := range back {
		w.returnJob(e)
	}
	for _, e := range ready {
		w.finish(e)
	}
	w.wg.Wait()
	err := w.pool.Close()
	if errors.Is(err, steal.ErrInsideTask) {
		// Called from a handler, which the pool would wait for: the
		// rest of Close runs once the handler has returned, on a
		// goroutine of its own, and Done tells when it has. Left
		// there, the pool's workers ran for ever.
		go func() { w.closeRest(self, w.pool.Close()) }()
		return nil
	}
	return w.closeRest(self, err)
}

// closeRest ends Close once the pool is closed (perr is its error): it
// waits for the completions being written and the loans' returns, closes
// Done and gives up the lease unless the worker stopped on its own (self).
func (w *Worker) closeRest(self bool, perr error) error {
	perr = w.dropGoexits(perr)
	w.mu.Lock()
	w.sealed = true // no loan's return starts a write from here on
	w.mu.Unlock()
	w.finishing.Wait()
	w.nc.FlushTimeout(w.cfg.timeout) // the loans' returns
	w.doneOnce.Do(func() { close(w.done) })
	if self {
		return perr
	}
	return errors.Join(perr, w.deregister())
}

// dropGoexits takes out of perr, the pool's error, the tasks that a
// handler's runtime.Goexit ended (w.goexits): the pool reports each as a
// *steal.PanicError wrapping steal.ErrGoexit, or counts it in a
// *steal.DroppedPanicsError past its limit, and each was recorded as its
// job's failure. Other Goexits (a task a handler spawned on the pool) are
// indistinguishable from these: as many are kept as were not handled.
func (w *Worker) dropGoexits(perr error) error {
	n := uint64(w.goexits.Swap(0))
	if n == 0 || perr == nil {
		return perr
	}
	errs := []error{perr}
	if j, ok := perr.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	keep := make([]error, 0, len(errs))
	for _, err := range errs {
		if pe, ok := err.(*steal.PanicError); ok && n > 0 && pe.Value == steal.ErrGoexit {
			n--
			continue
		}
		keep = append(keep, err)
	}
	for i, err := range keep {
		if d, ok := err.(*steal.DroppedPanicsError); ok && n > 0 {
			c := min(n, d.Count)
			n -= c
			if c == d.Count {
				keep[i] = nil // errors.Join leaves nils out
			} else {
				keep[i] = &steal.DroppedPanicsError{Count: d.Count - c, Limit: d.Limit}
			}
		}
	}
	return errors.Join(keep...)
}

// deregister deletes the lease if it is still ours, so that watchers see
// the worker leave without waiting for it to expire. It returns
// ErrNotHandedOver, wrapped with the cause, when no server answered.
func (w *Worker) deregister() error {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.timeout)
	defer cancel()
	w.mu.Lock()
	rev := w.hbRev
	w.mu.Unlock()
	err := w.st.workers.Delete(ctx, w.name, jetstream.LastRevision(rev))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		// The last renewal's ack was lost (Close cancelled it): delete
		// at the current revision if the lease is still this incarnation.
		var state leaseState
		switch rev, state = w.ownLease(ctx); state {
		case leaseOurs:
			err = w.st.workers.Delete(ctx, w.name, jetstream.LastRevision(rev))
		case leaseLost:
			err = nil // taken for dead: its jobs went to another worker
		case leaseUnknown:
			err = errors.New("the lease could not be read")
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotHandedOver, err)
	}
	return nil
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

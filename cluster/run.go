package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nuid"
	"github.com/worksteal/steal"
)

// Idle thieves back off from minIdleWait to maxIdleWait between steal
// attempts while some worker is known to have jobs queued; a hint resets
// the wait. With none known, a thief asks who has jobs (hungry.go) and
// waits for a hint, or lease/4, or until it may ask again.
const (
	minIdleWait = 100 * time.Microsecond
	maxIdleWait = 4 * time.Millisecond
)

// dispatch hands queued jobs to the pool, at most slots at a time (the rest
// stay in the deque, stealable), and steals when the deque runs dry. It
// sleeps until signalled (w.wake: a job queued, a slot freed), except
// between steal attempts; a lease/4 timer is only a safety net. On a
// machine shared by many worker processes, a dispatcher polling every
// 100 µs while it had nothing to do cost more CPU than the jobs.
func (w *Worker) dispatch() {
	backoff := minIdleWait
	for w.ctx.Err() == nil {
		w.rounds.Add(1)
		w.mu.Lock()
		w.startLocked()
		hungry := w.running < w.cfg.slots && w.dq.Len() == 0
		w.mu.Unlock()
		wait := w.st.lease / 4 // a signal (w.wake) comes with every change; this is a safety net
		if hungry && w.cfg.steal != StealOff {
			if w.hinted.Swap(false) {
				backoff = minIdleWait
			}
			if w.trySteal() {
				backoff = minIdleWait
				continue
			}
			if w.members.pick(w.name) != "" {
				backoff = min(2*backoff, maxIdleWait)
			} else if again := w.askHungry(); again > 0 {
				backoff = again // may ask again then
			} else {
				backoff = w.st.lease / 4 // nobody to ask: a hint wakes us
			}
			wait = backoff
		}
		t := time.NewTimer(wait)
		select {
		case <-w.ctx.Done():
		case <-w.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// startLocked hands queued jobs to the pool while slots are free; none
// once Close began. The dispatcher calls it each round, and the watch of
// the worker's own records when it queues a record, so that a job that
// arrives at an idle worker starts without a round of the dispatcher: a
// hand-off less per job, which on a machine shared by many worker
// processes is a thread woken less.
func (w *Worker) startLocked() {
	for w.running < w.cfg.slots && !w.closing {
		e := w.popFrontLocked()
		if e == nil {
			return
		}
		w.running++
		w.asked = false
		if !e.mem && e.borrow == nil {
			w.runs[e.id] = e
		}
		w.pool.Submit(context.Background(), func(sw *steal.Worker) { w.run(e, sw) })
	}
}

// run executes one job, then hands its slot straight to the next queued
// job, which runs on the same pool worker without a round through the
// dispatcher. The outcome is written off the slot (recordLater): the
// next job runs while the servers store the last one's completion.
func (w *Worker) run(e *entry, sw *steal.Worker) {
	for e != nil {
		if w.memMode(e) {
			e = w.runMem(e, sw)
		} else {
			e = w.runRecord(e, sw)
		}
	}
}

// runRecord runs a job whose spawned jobs get records (WithSpawnRecords,
// the default) and returns the next job for its slot, or nil.
//
// A handler that calls runtime.Goexit (t.FailNow does) ends the pool
// task's goroutine, and nothing can stop that: the deferred call then
// records the job as failed (ifGoexit) and gives the slot back, since the
// next job cannot run on this goroutine; the dispatcher starts it.
func (w *Worker) runRecord(e *entry, sw *steal.Worker) *entry {
	if w.alreadyDone(e) {
		w.skipDone(e)
		return nil
	}
	out := new(outcome)
	returned := false
	defer ifGoexit(&returned, func() {
		w.goexitOutcome(e, out)
		w.ranRecord(e, out, true, false)
	})
	ok := w.execute(e, sw, out)
	returned = true
	return w.ranRecord(e, out, ok, true)
}

// ranRecord ends the run of e, whose outcome is out (none to record when
// !ok), and returns the next job for its slot, or nil when it gave the
// slot back; goon false gives it back.
func (w *Worker) ranRecord(e *entry, out *outcome, ok, goon bool) *entry {
	if !ok {
		out = nil
	}
	w.mu.Lock()
	e.out, e.abort = out, out == nil
	w.completing++ // in the same hold of mu as the slot's release: never idle between
	// A completion that writes the records of children held here (local
	// spawn) keeps the slot: those children must not run, and complete,
	// while their records are being written.
	now := len(pendingLocked(e)) > 0
	w.mu.Unlock()
	if now {
		w.record(e)
	}
	w.mu.Lock()
	next := w.nextLocked(goon)
	w.mu.Unlock()
	if !now {
		w.recordLater(e)
	}
	if next == nil {
		poke(w.kick)
		w.signal()
	}
	return next
}

// goexitText is the failure recorded for a job whose handler called
// runtime.Goexit.
const goexitText = "handler called runtime.Goexit"

// ifGoexit is deferred by a function that runs a handler, with returned
// set once that function has returned: if it has not, the handler called
// runtime.Goexit (t.FailNow does), which nothing can stop, and ended ends
// the run as a failure and gives the slot back. A panic is the worker's
// own (callHandler recovers a handler's) and goes on unchanged. It
// recovers, so it must be the deferred call itself.
func ifGoexit(returned *bool, ended func()) {
	if *returned {
		return
	}
	if r := recover(); r != nil {
		panic(r)
	}
	ended()
}

// goexitOutcome records, in out, the failure of e, whose handler called
// runtime.Goexit, as for a panic (nil out: a job held in memory records
// nothing; a bundle's outcomes are in e.outs already, see executeBundle),
// and counts it for Close (dropGoexits).
func (w *Worker) goexitOutcome(e *entry, out *outcome) {
	if out != nil && !isBundle(e) {
		out.Code, out.Text, out.Result = ErrHandlerPanic.Code, goexitText, nil
	}
	w.goexits.Add(1)
}

// skipDone gives back the slot of e, a job alreadyDone found completed,
// and lets go of it (a borrowed one counts towards its loan's return).
func (w *Worker) skipDone(e *entry) {
	if e.borrow == nil {
		w.ran(e, false, true)
		return
	}
	w.mu.Lock()
	w.running--
	w.mu.Unlock()
	w.returnJob(e)
	w.signal() // a slot is free: the dispatcher may wait out its backoff
}

// recordLater writes the outcome of e (e.out, nothing when e.abort) in a
// goroutine of its own and then lets go of the job, or, for a borrowed
// one, counts it towards its loan's return. The caller counted it in
// completing, under mu, with the change that ended its run: the worker
// counts as busy meanwhile, and Close waits for it (finishing).
func (w *Worker) recordLater(e *entry) {
	w.finishing.Add(1)
	w.recordCounted(e)
}

// recordCounted is recordLater for a write the caller added to finishing.
// An idle recorder takes it, else a new one starts: a goroutine started
// for each completion grew its stack again each time (the write goes deep
// into encoding/json and nats.go), which profiles of flat jobs showed.
func (w *Worker) recordCounted(e *entry) {
	select {
	case w.recq <- e:
	default:
		go w.recorder(e)
	}
}

// recorderIdle is how long an idle recorder waits for the next write
// before it exits.
const recorderIdle = time.Second

// recorder writes e's outcome, then each one it is handed next, until it
// has waited recorderIdle for one or the worker stops.
func (w *Worker) recorder(e *entry) {
	t := time.NewTimer(recorderIdle)
	defer t.Stop()
	for {
		w.record(e)
		w.finishing.Done()
		t.Reset(recorderIdle)
		select {
		case e = <-w.recq:
		case <-t.C:
			return
		case <-w.ctx.Done():
			return
		}
	}
}

// record is recordLater's work, done by the caller.
func (w *Worker) record(e *entry) {
	requeue := false
	if !e.abort && e.out != nil {
		requeue = w.complete(e, e.out)
	}
	if e.borrow != nil {
		e.abort = e.abort || e.out == nil || requeue
		w.returnJob(e)
	} else {
		e.abort, e.out = false, nil
		w.ran(e, requeue, false)
	}
	w.mu.Lock()
	w.completing--
	w.mu.Unlock()
}

// alreadyDone reports whether e, a record loaded at a (re)start or taken
// over, is of a job whose completion the ledger holds already; its record
// is then deleted, conditional on its revision, and the job does not run.
// Such a record is one that a server restart brought back. Records that
// arrive on the hot path (submissions, steals) are not checked: their
// writes were conditional on the job not being done. When the ledger
// cannot be read, the job runs (its completion is create-only).
func (w *Worker) alreadyDone(e *entry) bool {
	w.mu.Lock()
	check, rev := e.verify && e.rev != 0, e.rev
	e.verify = false
	w.mu.Unlock()
	// A bundle's id has no completion of its own: d.<its id> is another
	// job's, and its jobs' are checked by its completion's batch instead.
	if !check || isBundle(e) {
		return false
	}
	o, err := w.st.done(w.ctx, e.id)
	if err != nil || o == nil {
		return false
	}
	w.st.commit(w.ctx, []op{{key: w.keyOf(e), del: true, check: true, expect: rev}})
	w.stats.duplicates.Add(1)
	return true
}

// execute runs the handler and fills out with the job's outcome; it
// reports false when the outcome must not be recorded (the handler failed
// because the worker is closing). The caller owns out: a job held in
// memory records nothing, and its outcome need not outlive the run.
func (w *Worker) execute(e *entry, sw *steal.Worker, out *outcome) bool {
	run := ""
	if !e.mem { // mem is set before the entry is queued, and never changes
		w.mu.Lock()
		if e.run == "" {
			e.run = nuid.Next() // kept when the job is queued again, so a retry is ours
		}
		run = e.run
		w.mu.Unlock()
	}
	*out = outcome{ID: e.id, Worker: w.name, Run: run}
	if e.rec == nil {
		out.Code, out.Text = ErrMalformedJob.Code, e.err
		return true
	}
	r := e.rec
	out.Type, out.Attempt, out.Hops = r.Type, r.Attempt, r.Hops
	if len(r.Bundle) > 0 {
		return w.executeBundle(e, sw, run, out)
	}
	// A job spawned in memory brings the Job its handler sees, made with
	// it (spawnMem); it serves one run only, so that a handler that kept
	// the last run's Job does not share it with this one.
	j := e.job
	e.job = nil
	if j == nil {
		j = new(Job)
	}
	*j = Job{ID: r.ID, Type: r.Type, Payload: r.Payload, Cost: r.Cost, Attempt: r.Attempt,
		StolenFrom: r.From, w: w, e: e, local: sw}
	return w.handle(e, j, out)
}

// handle runs j, a run of e (or of one of bundle e's jobs), with the
// handler of its type, and fills out with its outcome, as execute does.
func (w *Worker) handle(e *entry, j *Job, out *outcome) bool {
	w.hmu.RLock()
	h := w.handlers[j.Type]
	if h == nil {
		h = w.fallback
	}
	w.hmu.RUnlock()
	if h == nil {
		out.Code, out.Text = ErrUnknownType.Code, fmt.Sprintf("no handler for type %q on worker %s", j.Type, w.name)
		return true
	}
	res, err := callHandler(w.jobCtx, h, j)
	switch {
	case err != nil:
		return w.failed(e, err, out)
	case len(res) > w.cfg.maxPayload:
		out.Code, out.Text = ErrResultTooLarge.Code, fmt.Sprintf("result of %d bytes, limit %d", len(res), w.cfg.maxPayload)
	default:
		out.Result = res
	}
	return true
}

// failed fills out for a handler that returned err, as execute does; kept
// apart so that what it needs on the heap (errors.As's target) is only
// allocated for a failure.
func (w *Worker) failed(e *entry, err error, out *outcome) bool {
	var pe *panicError
	switch {
	case errors.As(err, &pe):
		// The code says it panicked; the text is what it panicked with.
		out.Code, out.Text = ErrHandlerPanic.Code, failText(fmt.Sprint(pe.v))
	case w.jobCtx.Err() != nil:
		return false // closing: leave the job for another worker
	case errors.Is(err, ErrFenced) && w.fencedOut(e):
		// Spawn found the job's record (or its anchor's) taken over: its
		// new owner runs it again. A job without a record could still
		// write d.<id>, and must not record this run's failure.
		w.mu.Lock()
		e.orphan = true
		w.mu.Unlock()
		return false
	default:
		out.Code, out.Text = ErrHandler.Code, failText(err.Error())
	}
	return true
}

// fencedOut reports whether the record that fences e's run (its own, or
// its anchor's) has moved away, checked when its handler returned
// ErrFenced. A handler may pass on ErrFenced from a *Job kept past its own
// run, or return it by mistake: the job is then not fenced, and its
// failure is recorded as any other, rather than left to a new owner that
// nothing makes. A job held in memory is fenced by the record of the root
// of its subtree: read, when the root is a job with a record (its own
// worker's, or borrowed with it). Taken as fenced otherwise (a subtree
// borrowed in memory: the lender, to which its loan goes back aborted,
// runs it again and reads its root). Were such a job taken as fenced
// while its root's record is still this worker's, the root's completion
// would not be written and its record left, live, to nobody. When the
// servers cannot tell, neither: its completion is conditional on the
// record anyway.
func (w *Worker) fencedOut(e *entry) bool {
	w.mu.Lock()
	if e.mem {
		for e.up != nil {
			e = e.up
		}
		if e.mem {
			w.mu.Unlock()
			return true
		}
	}
	key, rev := w.guardLocked(e)
	w.mu.Unlock()
	return key == "" || !w.stillOurs(key, rev)
}

// maxFailText bounds the text a failure records: a completion larger than
// a server message (1 MiB by default) is never written, so the job (and
// every other job of its bundle) would run again forever.
const maxFailText = 16 << 10

// failText is text cut to at most maxFailText bytes, "..." included,
// between two characters.
func failText(text string) string {
	if len(text) <= maxFailText {
		return text
	}
	cut := maxFailText - len("...")
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "..."
}

type panicError struct{ v any }

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }

// callHandler runs h, turning a panic into an error: one bad job must not
// take the worker down.
func callHandler(ctx context.Context, h Handler, j *Job) (res []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, &panicError{v}
		}
	}()
	return h(ctx, j)
}

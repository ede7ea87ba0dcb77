package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/worksteal/steal"
)

// Handler runs one job and returns its result. A returned error is recorded
// as the job's failure (code "handler"). ctx ends when the worker closes.
// A handler that panics, or calls runtime.Goexit (as t.FailNow does), has
// its job recorded as failed with ErrHandlerPanic, and the worker goes on;
// in a bundle, the jobs after one that called Goexit do not run and are
// recorded as failed with ErrHandlerPanic too, their text saying why.
type Handler func(ctx context.Context, j *Job) ([]byte, error)

// Job is a job as its handler sees it.
type Job struct {
	ID      string
	Type    string
	Payload []byte
	Cost    int64 // the submitter's cost hint, 0 when none was given
	// Attempt counts takeovers: 0 on the first worker, more when a worker
	// died or was fenced while holding the job, so this may be a re-run.
	Attempt int
	// StolenFrom names the worker the job was stolen from when a steal
	// brought it here (an idle worker's own, or Client.Steal): the victim
	// writes its name into the moved record. It is empty for a job
	// submitted or spawned here, or taken over from a dead worker.
	StolenFrom string

	w *Worker
	e *entry // the job as the worker holds it: its record's revision fences spawns
	// spawned counts Spawn's ids: atomic, as fork-join code spawns from
	// several goroutines, and two calls that read one count would get
	// one id, the second child then taken for the first and dropped.
	spawned atomic.Int64
	local   *steal.Worker
}

// Worker is the name of the worker running the job.
func (j *Job) Worker() string { return j.w.name }

// Local is the steal.Pool worker running this job: tasks spawned through it
// (Spawn, Join, Fork2) stay in this process and are stolen only by the
// pool's other workers.
func (j *Job) Local() *steal.Worker { return j.local }

// Spawn queues a child job on this worker's own deque (its front, so it runs
// here next unless a thief takes it) and returns the child's id,
// "<parent id>-<n>" for the n-th spawn of this run. Ids are deterministic so
// that a re-run of the parent (after a crash) spawns the same ids, which are
// recorded once.
//
// With local spawn (the default, WithLocalSpawn), Spawn writes nothing: the
// child is held in memory until a thief steals it or this job completes,
// and the record of this job (or of the ancestor it was spawned from)
// stands for it meanwhile. Spawn returns ErrFenced when that record is no
// longer this worker's (the job was taken over): the child is not queued.
// Spawn asks the servers only when the worker fenced itself since this job
// started (then it cannot tell from memory).
//
// With WithSpawnRecords(false), or in a job borrowed from a worker that
// set it, Spawn writes nothing and returns nil: the child lives in memory
// until it has run, this job's completion waits for it, and nothing
// records it (see WithSpawnRecords).
//
// With WithLocalSpawn(false), Spawn writes the child's record before it
// returns, conditional on this job's record: ErrFenced means that record
// is no longer this worker's (the job was taken over). Transient server
// errors (a leader election after a server was lost) are retried until ctx
// ends or for at most 30 s; after that Spawn returns an error wrapping
// ErrUnavailable, and the child may or may not be queued (a re-run of the
// parent spawns it at most once).
//
// A child's id is its parent's and two characters or more: a chain of
// spawns about (MaxIDLen - len(root id))/2 deep reaches MaxIDLen, and
// Spawn then returns ErrInvalidID and queues nothing (in memory, the
// root's completion is still recorded: a spawned job's failure is not).
// A deeper tree names its jobs with SpawnID.
//
// Spawn may be called from several goroutines at once; each call gets an
// id of its own, but n then follows the order the calls happen to take,
// so a re-run may give an id to another child: use SpawnID with ids of
// your own where the children differ.
//
// A Job is its handler's while the handler runs: once this job and the
// jobs spawned under it have finished, Spawn on a Job kept past that
// queues nothing and returns ErrFenced, whatever the mode.
func (j *Job) Spawn(ctx context.Context, typ string, payload []byte) (string, error) {
	id := j.ID + "-" + strconv.FormatInt(j.spawned.Add(1)-1, 10)
	return id, j.SpawnID(ctx, id, typ, payload)
}

// SpawnID is Spawn with a caller-chosen id. A child whose id is already
// queued, running or recently submitted is not queued again, and SpawnID
// returns nil: the job exists. In memory (WithSpawnRecords(false)) ids
// are not checked: each call queues a child. Invalid input gives ErrInvalidID,
// ErrInvalidType or ErrPayloadTooLarge and queues nothing.
func (j *Job) SpawnID(ctx context.Context, id, typ string, payload []byte) error {
	if j.w.memMode(j.e) {
		c := &memChild{rec: record{ID: id, Type: typ, Payload: payload}}
		if err := c.rec.check(j.w.cfg.maxPayload); err != nil {
			return err
		}
		return j.w.spawnMem(j.e, c)
	}
	r := &record{ID: id, Type: typ, Payload: payload}
	if err := r.check(j.w.cfg.maxPayload); err != nil {
		return err
	}
	if j.w.cfg.localSpawn {
		return j.w.spawnLocal(ctx, j.e, r)
	}
	j.w.mu.Lock()
	rev := j.e.rev
	j.w.mu.Unlock()
	return j.w.spawn(ctx, r, j.w.keyOf(j.e), rev)
}

// ErrFenced is returned by Spawn when the running job's record has moved to
// another worker (this worker was taken for dead): its writes are refused.
// A handler that returns it (or an error wrapping it) has no outcome
// recorded for this run: the job's new owner runs it again.
var ErrFenced = &Error{"fenced", "the job was taken over by another worker; this run's writes are refused"}

func (w *Worker) spawn(ctx context.Context, r *record, parentKey string, parentRev uint64) error {
	data, _ := json.Marshal(r)
	w.mu.Lock()
	_, dup := w.known[r.ID]
	w.mu.Unlock()
	if dup {
		return nil
	}
	rev, err := w.st.put(ctx, qKey(w.name, r.ID), data, r.ID, parentKey, parentRev)
	switch {
	case errors.Is(err, errDupMsg):
		return nil
	case errors.Is(err, errConflict):
		return ErrFenced
	case err != nil:
		return err
	}
	w.mu.Lock()
	w.adoptLocked(&entry{id: r.ID, rev: rev, rec: r}, true)
	w.mu.Unlock()
	w.signal()
	return nil
}

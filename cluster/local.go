package cluster

import (
	"context"
	"encoding/json"
)

// Local spawn: a job a handler spawns is held only in the spawning worker's
// memory (an entry with rev 0, listed in its parent's kids) until it is
// stolen or its parent completes; only then is its record written. The
// parent's record (or, for a parent held the same way, the nearest
// ancestor's record) stands for it meanwhile: a crash re-runs that
// ancestor, which spawns the same ids again. See the package documentation.

// flight says which batch in flight is about an entry. At most one is: a
// batch claims every entry it writes, and waits while one of them is
// claimed by another, so that a job's own completion, its parent's
// completion and a steal never race to write it.
type flight uint8

const (
	flightNone  flight = iota
	flightKid          // its parent's completion is writing its record, under this worker's name
	flightSelf         // its own completion
	flightSteal        // a steal is moving it to a thief
)

// spawnLocal queues r as a child of parent at the front of the deque,
// without writing anything. An id held or let go lately is not queued
// again (a re-run of the parent spawns the same ids). It returns
// ErrFenced when the parent's anchor record is no longer this worker's; it
// asks the servers only when the worker cannot tell (it fenced itself
// since the parent started: its view of its records was dropped).
func (w *Worker) spawnLocal(ctx context.Context, parent *entry, r *record) error {
	w.mu.Lock()
	live := w.liveLocked(parent)
	guard, grev := w.guardLocked(parent)
	w.mu.Unlock()
	if !live && guard != "" && !w.stillOursCtx(ctx, guard, grev) {
		return ErrFenced
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, held := w.known[r.ID]; held || w.retiredLocked(r.ID) {
		return nil
	}
	e := &entry{id: r.ID, rec: r, parent: parent}
	w.enterLocked()
	w.known[r.ID] = 0
	w.locals[r.ID] = e
	parent.kids = append(parent.kids, e)
	w.dq.PushFront(e)
	w.signal()
	return nil
}

// upgradeLocked records that e, held without a record, now has one at rev
// under this worker's name.
func (w *Worker) upgradeLocked(e *entry, rev uint64) {
	if e.rev != 0 || rev == 0 {
		return
	}
	e.rev, e.parent = rev, nil // its own record fences it from now on
	if w.locals[e.id] == e {
		delete(w.locals, e.id)
		w.known[e.id] = rev
	}
}

// anchorLocked returns the nearest ancestor of e that has a record: it is
// running here (a job spawns only while it runs, and a completion writes
// the records of the children still pending), and the revision of its
// record fences writes about e. After a refused completion the ancestor
// may have lost that record: then the check fails, as it should. It
// returns nil when no ancestor is known.
func anchorLocked(e *entry) *entry {
	p := e.parent
	for p != nil && p.rev == 0 {
		p = p.parent
	}
	return p
}

// guardLocked returns the key and revision that fence a write about e: its
// own record, or its anchor's; "" when there is none.
func (w *Worker) guardLocked(e *entry) (string, uint64) {
	if e.rev != 0 {
		return w.keyOf(e), e.rev
	}
	if a := anchorLocked(e); a != nil {
		return w.keyOf(a), a.rev
	}
	return "", 0
}

// pendingLocked returns e's children that still have no record and are
// neither completed nor moved away, dropping the others from e.kids.
func pendingLocked(e *entry) []*entry {
	var out []*entry
	kept := e.kids[:0]
	for _, k := range e.kids {
		if !k.gone && k.rev == 0 {
			out = append(out, k)
			kept = append(kept, k)
		}
	}
	clear(e.kids[len(kept):])
	e.kids = kept
	return out
}

// claim is what one completion batch holds: the job, its pending
// children, and the anchor its writes are fenced on (pinned: it cannot
// complete, and so move its record, while the batch is in flight).
type claim struct {
	e      *entry
	kids   []*entry
	anchor *entry // nil for a job with a record, or none found
	rev    uint64 // e's record revision, 0 for none
	guard  string
	grev   uint64
}

// claimLocked waits until neither e, its pending children nor its anchor
// are claimed by another batch, and e's record (if any) is not pinned by
// a batch of a descendant, then claims them. Claims are taken all at once
// under w.mu and never held while waiting, so two batches cannot wait on
// each other.
func (w *Worker) claimLocked(e *entry) claim {
	for {
		kids := pendingLocked(e)
		a := anchorLocked(e)
		if e.rev != 0 {
			a = nil
		}
		free := e.flying == flightNone && e.pins == 0 && (a == nil || a.flying == flightNone)
		for _, k := range kids {
			free = free && k.flying == flightNone
		}
		if free {
			e.flying = flightSelf
			for _, k := range kids {
				k.flying = flightKid
			}
			c := claim{e: e, kids: kids, anchor: a, rev: e.rev}
			c.guard, c.grev = w.guardLocked(e)
			if a != nil {
				a.pins++
			}
			return c
		}
		w.flights.Wait()
	}
}

// releaseLocked ends a claim: kids got the revisions in revs (0: none).
func (w *Worker) releaseLocked(c claim, revs []uint64) {
	for i, k := range c.kids {
		w.upgradeLocked(k, revs[i])
		k.flying = flightNone
	}
	c.e.flying = flightNone
	if c.anchor != nil {
		c.anchor.pins--
	}
	w.flights.Broadcast()
}

// kidOps returns the puts of kids' records under this worker's name,
// each conditional on guard (when set) still being at rev.
func (w *Worker) kidOps(kids []*entry, guard string, rev uint64) []op {
	ops := make([]op, len(kids))
	for i, k := range kids {
		data, _ := json.Marshal(k.rec)
		ops[i] = op{key: qKey(w.name, k.id), value: data, guard: guard, expect: rev, check: guard != ""}
	}
	return ops
}

// batchLimit reports how many of ops, from the front, fit in one batch
// after fixed others: at most maxStealJobs jobs and about maxStealBytes,
// well under the servers' 1000 messages and 1 MiB.
func batchLimit(ops []op, fixed int) int {
	size := fixed
	for i, o := range ops {
		size += len(o.value) + 256
		if i == maxStealJobs || size > maxStealBytes {
			return i
		}
	}
	return len(ops)
}

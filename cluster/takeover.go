package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ownLoop follows the records under the worker's name. It loads them at
// start (and after a fence), and picks up records that arrive by other
// paths than the worker's own hands: a steal whose reply was lost, a
// takeover into this worker. A record that moved away (a takeover of this
// worker while it was paused) makes its queued entry stale.
func (w *Worker) ownLoop() {
	open := func() (jetstream.KeyWatcher, error) {
		return w.st.jobs.Watch(w.ctx, "q."+w.name+".>")
	}
	w.watchLoop(open, w.reload, w.onOwn)
}

// onOwn applies one update of the records under the worker's name. A
// record loaded when the watch starts (initial) is checked against the
// ledger before it runs: it may be one of an earlier life, or one that a
// server restart brought back, whose job completed already. A record the
// worker let go of (retired) but that is live still is looked into (see
// reclaim) rather than skipped, so that no record is left that nobody
// runs or deletes.
func (w *Worker) onOwn(e jetstream.KeyValueEntry, initial bool) {
	id := strings.TrimPrefix(e.Key(), "q."+w.name+".")
	w.mu.Lock()
	defer w.mu.Unlock()
	if e.Operation() != jetstream.KeyValuePut {
		// Most often the echo of the worker's own delete. Nothing the
		// dispatcher waits for changed: a queued entry it made stale is
		// dropped when popped.
		w.retireLocked(id, e.Revision())
		return
	}
	en := decodeEntry(id, e.Revision(), e.Value())
	// A record moved here before its check (its Check field) keeps it:
	// a Client.Steal, or a steal whose reply the watch beats, brings it
	// by this path alone.
	en.verify = en.verify || initial
	if w.adoptLocked(en, false) {
		w.startLocked()
		if w.surplusLocked() > 0 {
			poke(w.kick) // a record a client wrote: its surplus may be worth a hint
		}
	} else if w.letGoLocked(en) && w.reclaiming[id] < en.rev {
		w.reclaiming[id] = en.rev // a late delivery of an older revision must not hide this one
		w.wg.Add(1)               // the own loop, in wg, is running: Close waits for it
		go w.reclaim(en)
	}
}

// letGoLocked reports whether e is a record at a revision the worker let
// go of lately (completed, given away, moved) and holds no newer record
// of. A job that is still settling its completion (held, or running, at
// an older revision) counts: its record may reappear before it is retired.
func (w *Worker) letGoLocked(e *entry) bool {
	if r, held := w.known[e.id]; held && r >= e.rev || w.locals[e.id] != nil {
		return false
	}
	return e.rev <= max(w.retired[0][e.id], w.retired[1][e.id])
}

// reclaim deals with a record under this worker's name that it let go of
// but that the watch shows live: a record that a server restart brought
// back (nats-server can lose a delete when killed), or a late delivery of
// one deleted since. If the ledger holds the job's completion, the record
// is deleted, conditional on its revision. If not, and the record is
// still at that revision, it is queued again. A record left because the
// servers did not answer is looked at again at the next start of the
// watch (a reload), as every record is.
func (w *Worker) reclaim(e *entry) {
	defer w.wg.Done()
	defer func() {
		w.mu.Lock()
		if w.reclaiming[e.id] == e.rev {
			delete(w.reclaiming, e.id)
		}
		w.mu.Unlock()
	}()
	key := qKey(w.name, e.id)
	o, err := w.st.done(w.ctx, e.id)
	if err != nil {
		return
	}
	if o != nil {
		if _, err := w.st.commit(w.ctx, []op{{key: key, del: true, check: true, expect: e.rev}}); err == nil {
			w.stats.duplicates.Add(1)
		}
		return
	}
	if !w.stillOursCtx(w.ctx, key, e.rev) || w.ctx.Err() != nil {
		return // a late delivery: deleted or moved since
	}
	w.mu.Lock()
	if w.retired[0][e.id] >= e.rev {
		delete(w.retired[0], e.id)
	}
	if w.retired[1][e.id] >= e.rev {
		delete(w.retired[1], e.id)
	}
	w.adoptLocked(e, false)
	w.mu.Unlock()
	w.signal()
}

// watchLoop keeps a watch open until the worker closes: it opens one (again
// a lease/4 later if that fails), hands each update to apply, and starts
// over when the watch ends or restart is poked.
func (w *Worker) watchLoop(open func() (jetstream.KeyWatcher, error), restart <-chan struct{},
	apply func(e jetstream.KeyValueEntry, initial bool)) {
	for w.ctx.Err() == nil {
		kw, err := open()
		if err != nil {
			w.sleep(w.st.lease / 4)
			continue
		}
		w.follow(kw, restart, apply)
		w.st.stopWatch(context.Background(), kw)
	}
}

// follow hands kw's updates to apply until the worker closes, restart is
// poked or the watch ends, each with whether it is one of the initial
// values (the keys as they were when the watch started). The nil that
// marks the end of the initial values is not handed on.
func (w *Worker) follow(kw jetstream.KeyWatcher, restart <-chan struct{}, apply func(jetstream.KeyValueEntry, bool)) {
	initial := true
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-restart:
			return
		case e, ok := <-kw.Updates():
			if !ok {
				return
			}
			if e == nil {
				initial = false
				continue
			}
			apply(e, initial)
		}
	}
}

func decodeEntry(id string, rev uint64, data []byte) *entry {
	r, err := decodeRecord(id, data)
	if err != nil {
		return &entry{id: id, rev: rev, err: err.Error()}
	}
	return &entry{id: id, rev: rev, rec: r, verify: r.Check}
}

// scanLoop looks for orphans: records whose owner holds no lease. It runs
// at start, when a member leaves, and every 4 leases as a backstop. Only
// the live worker that sorts first acts, so one survivor takes over a dead
// worker; were two to try, the compare-and-swap on each record lets one win.
func (w *Worker) scanLoop() {
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-w.scan:
		case <-timeAfter(4 * w.st.lease):
		}
		if w.members.lowest(w.name) {
			w.scanOrphans()
		}
	}
}

func (w *Worker) scanOrphans() {
	keys, err := w.st.keys(w.ctx, "q.>")
	if err != nil {
		return
	}
	owners := map[string]bool{}
	for _, k := range keys {
		if o, _, ok := splitQKey(k); ok && o != w.name && !w.members.has(o) {
			owners[o] = true
		}
	}
	names := make([]string, 0, len(owners))
	for o := range owners {
		names = append(names, o)
	}
	sort.Strings(names)
	for _, o := range names {
		if w.alive(o) {
			continue // registered after our view was taken
		}
		w.takeover(o)
	}
}

func splitQKey(k string) (owner, id string, ok bool) {
	rest, ok := strings.CutPrefix(k, "q.")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, ".")
}

// alive asks the bucket, not the view, whether owner holds a lease.
func (w *Worker) alive(owner string) bool {
	ctx, cancel := context.WithTimeout(w.ctx, w.cfg.timeout)
	defer cancel()
	_, err := w.st.workers.Get(ctx, owner)
	return !errors.Is(err, jetstream.ErrKeyNotFound) && !errors.Is(err, jetstream.ErrKeyDeleted)
}

// takeover moves a dead worker's records to this worker in batches, each
// record moved by a compare-and-swap on its revision, and queues them at
// the back, where thieves look first. Jobs the dead worker was running
// have records too, and run again here (Attempt + 1).
func (w *Worker) takeover(dead string) {
	found, err := w.records(dead)
	if err != nil {
		return
	}
	for len(found) > 0 {
		n := min(len(found), maxTakeover)
		if !w.moveIn(found[:n]) && n > 1 {
			for i := range n { // a record changed under us: move the rest one by one
				w.moveIn(found[i : i+1])
			}
		}
		found = found[n:]
	}
}

// stored is a record as read from the bucket.
type stored struct {
	key string
	id  string
	rev uint64
	raw []byte
}

// records reads the live records under owner's name.
func (w *Worker) records(owner string) ([]stored, error) {
	var out []stored
	pfx := "q." + owner + "."
	err := w.st.readWatch(w.ctx, func(ctx context.Context) (jetstream.KeyWatcher, error) {
		return w.st.jobs.Watch(ctx, pfx+">", jetstream.IgnoreDeletes())
	}, func(e jetstream.KeyValueEntry) {
		out = append(out, stored{e.Key(), strings.TrimPrefix(e.Key(), pfx), e.Revision(), e.Value()})
	})
	return out, err
}

// moveIn commits one takeover batch; it reports whether it went through.
// Each put of a record under this worker's name is conditional on that key
// being as read just before (absent, or its last delete): the key may hold
// a record of the same id already (the job queued here twice, by a
// submission repeated outside the servers' duplicate window, say), and a
// steal into this worker may write it meanwhile. Written over, that record
// would be lost to the entry that holds it: its run's completion refused,
// the job run again. A record this worker holds already is kept, and only
// the dead worker's copy is deleted.
func (w *Worker) moveIn(batch []stored) bool {
	mine, err := w.ownKeys(batch)
	if err != nil {
		return false
	}
	ops := make([]op, 0, 2*len(batch))
	var moved []*entry
	var at []int // index in ops of each moved entry's put
	for _, s := range batch {
		ops = append(ops, op{key: s.key, del: true, check: true, expect: s.rev})
		k := qKey(w.name, s.id)
		m := mine[k]
		if m.live {
			continue // held here already
		}
		e, raw := decodeEntry(s.id, 0, s.raw), s.raw
		if e.rec != nil {
			e.rec.Attempt++
			e.rec.From = "" // a takeover, not a steal
			// The check travels in the record: the watch's echo of
			// this put often reaches onOwn before the batch's answer
			// reaches adoptLocked below, and queues what it decodes.
			e.rec.Check = true
			raw, _ = json.Marshal(e.rec)
		}
		e.verify = true // a record brought back by a server restart may be of a completed job
		moved, at = append(moved, e), append(at, len(ops))
		ops = append(ops, op{key: k, value: raw, check: true, expect: m.rev})
	}
	w.mu.Lock()
	w.enterLocked()
	w.moving += len(batch)
	w.mu.Unlock()
	revs, err := w.st.commit(w.ctx, ops)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.moving -= len(batch)
	if err != nil {
		return false
	}
	for i, e := range moved {
		e.rev = revs[at[i]]
		w.adoptLocked(e, false)
	}
	w.stats.takenOver.Add(int64(len(moved))) // not those held here already
	poke(w.wake)
	return true
}

// ownKey is the last write of a key: its revision (0 for none) and
// whether it is a live record rather than a delete.
type ownKey struct {
	rev  uint64
	live bool
}

// ownKeys reads the last write of q.<me>.<id> for the ids in batch.
func (w *Worker) ownKeys(batch []stored) (map[string]ownKey, error) {
	keys := make([]string, len(batch))
	for i, s := range batch {
		keys[i] = qKey(w.name, s.id)
	}
	out := map[string]ownKey{}
	err := w.st.readWatch(w.ctx, func(ctx context.Context) (jetstream.KeyWatcher, error) {
		return w.st.jobs.WatchFiltered(ctx, keys)
	}, func(e jetstream.KeyValueEntry) {
		out[e.Key()] = ownKey{e.Revision(), e.Operation() == jetstream.KeyValuePut}
	})
	return out, err
}

func timeAfter(d time.Duration) <-chan time.Time { return time.After(d) }

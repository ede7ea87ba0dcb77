package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// beat is a worker's lease value: its state as of the last heartbeat.
type beat struct {
	Name    string `json:"name"`
	Proc    string `json:"proc,omitempty"` // the registering Worker value's own id
	Inc     uint64 `json:"inc"`
	Busy    bool   `json:"busy"`
	Queue   int    `json:"queue"`
	Running int    `json:"running"`
	Epoch   uint64 `json:"epoch"`
	// Counters since start, for Client.Workers.
	Completed int64 `json:"completed,omitempty"`
	Stolen    int64 `json:"stolen,omitempty"`
	Given     int64 `json:"given,omitempty"`

	// hinted: in a worker's view, a name known from a hint alone, not
	// from the workers bucket (see members.setHint).
	hinted bool
}

func (w *Worker) stateLocked() beat {
	return beat{Name: w.name, Proc: w.proc, Inc: w.inc, Busy: w.busyLocked(), Queue: w.queueLocked(),
		Running: w.running, Epoch: w.epoch, Completed: w.stats.completed.Load(),
		Stolen: w.stats.stolen.Load(), Given: w.stats.given.Load()}
}

func (w *Worker) beatLocked() []byte {
	b, _ := json.Marshal(w.stateLocked())
	return b
}

// heartbeatLoop renews the lease every lease/4, and only then: thieves
// learn queue sizes from hints (hintLoop), not from the lease, so a
// renewal costs the servers one write, its answer, and one delivery to
// each monitor (see membersLoop) whatever the number of workers. A
// renewal refused by the compare-and-swap means the lease expired: the
// worker fences itself.
func (w *Worker) heartbeatLoop() {
	w.every(w.st.lease/4, func() bool {
		w.heartbeat()
		return !w.lostServer()
	})
}

// every calls f every d until the worker closes or f reports false.
func (w *Worker) every(d time.Duration, f func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		if !f() {
			return
		}
	}
}

// hintGap spaces a worker's hints: at most 20 a second.
const hintGap = 50 * time.Millisecond

// hintFanout is the most workers one hint reaches.
const hintFanout = 4

// hint is what a worker with queued jobs tells idle thieves: its name and
// queue.
type hint struct {
	Name  string `json:"name"`
	Queue int    `json:"queue"`
}

// hintLoop publishes a hint when the worker has jobs queued beyond its free
// slots: when that surplus grows (it is told of state changes on
// kick) and again every lease/4 while jobs stay queued, at most every
// hintGap. Core NATS, nothing stored: an idle cluster sends none.
//
// A hint reaches at most hintFanout workers (publishHint), not all W: a
// hint sent to every worker costs the servers W deliveries and wakes
// every idle thief, all of which then ask the same victim, so that with
// many workers queueing, hints and steal requests grew as O(W²).
func (w *Worker) hintLoop() {
	t := time.NewTicker(w.st.lease / 4)
	defer t.Stop()
	defer w.listenHungry(0)
	last, at := 0, time.Time{}
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-w.kick:
		case <-t.C:
		}
		w.mu.Lock()
		q := w.surplusLocked()
		w.mu.Unlock()
		w.listenHungry(q)
		if q <= 0 {
			last = 0
			continue
		}
		if q <= last && time.Since(at) < w.st.lease/4 {
			continue
		}
		w.publishHint(q)
		last, at = q, time.Now()
		if !w.sleep(hintGap) {
			return
		}
	}
}

// publishHint tells other workers that this one has q jobs to spare. In
// a view of at most hintFanout other workers, every worker hears it
// (steal.<cluster>.hint). In a larger one, it goes out min(q, hintFanout)
// times, at least twice, on steal.<cluster>.hint.any, to which every
// worker subscribes in one queue group: the servers hand each copy to
// one worker picked at random. Those that are busy keep the queue in
// their view, for when they run dry; the hint is sent again every
// lease/4 while the surplus stays, each time to others.
func (w *Worker) publishHint(q int) {
	b, _ := json.Marshal(hint{Name: w.name, Queue: q})
	if w.members.size() <= hintFanout+1 {
		w.nc.Publish(w.cfg.subject("hint"), b)
		return
	}
	for range min(max(q, 2), hintFanout) {
		w.nc.Publish(w.cfg.subject("hint.any"), b)
	}
}

// surplusLocked is how many queued jobs the worker has to spare. Jobs
// about to take a free slot are not surplus: a hint for them would have a
// thief take a job the worker is starting.
func (w *Worker) surplusLocked() int {
	return w.queueLocked() - max(0, w.cfg.slots-w.running)
}

// onHint records another worker's queue from its hint and wakes the
// dispatcher, which steals if it is idle.
func (w *Worker) onHint(m *nats.Msg) {
	var h hint
	if json.Unmarshal(m.Data, &h) != nil || h.Name == w.name || !validName(h.Name) {
		return
	}
	w.members.setHint(h.Name, h.Queue)
	if h.Queue > 0 {
		w.hinted.Store(true)
		w.signal()
	}
}

// lossLimit is how long the worker goes on without renewing its lease:
// WithServerLossLimit, and at least two leases.
func (w *Worker) lossLimit() time.Duration { return max(w.cfg.lossLimit, 2*w.st.lease) }

// lostServer stops the worker (ErrServerLost) and reports true when its
// lease has not been renewed for longer than the loss limit.
func (w *Worker) lostServer() bool {
	w.mu.Lock()
	since := time.Since(w.renewed)
	w.mu.Unlock()
	if since <= w.lossLimit() {
		return false
	}
	w.stopServing(fmt.Errorf("%w: lease not renewed for %v", ErrServerLost, since.Round(time.Second)))
	return true
}

func (w *Worker) heartbeat() {
	w.mu.Lock()
	data, rev := w.beatLocked(), w.hbRev
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(w.ctx, w.cfg.timeout)
	defer cancel()
	nrev, err := w.st.workers.Update(ctx, w.name, data, rev)
	switch {
	case err == nil:
		w.mu.Lock()
		w.hbRev, w.renewed = nrev, time.Now()
		w.mu.Unlock()
	case errors.Is(err, jetstream.ErrKeyRevisionMismatch), errors.Is(err, jetstream.ErrKeyNotFound):
		// A renewal whose ack was lost leaves a stale revision: if the
		// lease still holds this incarnation, it is ours; if it holds
		// another or none, fence. If the read fails too (a leader
		// election), nothing is known: try again at the next tick, as for
		// any other error, rather than drop the deque for nothing. Every
		// write is fenced by revision meanwhile, and a lease that runs out
		// is read as lost at a later tick.
		switch nrev, state := w.ownLease(ctx); state {
		case leaseOurs:
			w.mu.Lock()
			w.hbRev, w.renewed = nrev, time.Now()
			w.mu.Unlock()
		case leaseLost:
			w.fence()
		}
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, jetstream.ErrStreamNotFound):
		// The workers bucket is gone: it is kept in memory, and a server
		// restart loses it with every lease. Create it again, follow the
		// new one from its start, and register again.
		if w.st.reopenWorkers(ctx) == nil {
			poke(w.rewatch)
			w.fence()
		}
	}
	// Other errors (timeouts, a reconnecting client) are retried at the
	// next tick; if the lease runs out meanwhile, the next renewal fences.
}

// leaseState is what ownLease learned of the lease.
type leaseState int

const (
	leaseOurs    leaseState = iota // it holds this worker's incarnation
	leaseLost                      // it is gone, or holds another incarnation
	leaseUnknown                   // the read failed
)

// ownLease reads the lease and reports its revision if it still carries
// this worker's incarnation (only this worker writes that value).
func (w *Worker) ownLease(ctx context.Context) (uint64, leaseState) {
	e, err := w.st.workers.Get(ctx, w.name)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return 0, leaseLost
	case err != nil:
		return 0, leaseUnknown
	}
	var b beat
	w.mu.Lock()
	inc := w.inc
	w.mu.Unlock()
	if json.Unmarshal(e.Value(), &b) != nil || b.Inc != inc {
		return 0, leaseLost
	}
	return e.Revision(), leaseOurs
}

// fence handles a lost lease: the worker may have been taken for dead and
// its jobs moved, so it drops its deque, re-registers under a new
// incarnation and reloads whatever records still carry its name, except
// those of the jobs it is still running (see adoptLocked). Jobs it is
// running finish; their completions succeed only if their records did
// not move. When another process holds the name now, the worker stops
// serving (ErrSuperseded): two processes must not serve one name. When no
// server answers for longer than the loss limit, it stops too
// (ErrServerLost).
func (w *Worker) fence() {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return
	}
	w.stats.fenced.Add(1)
	// In-memory and borrowed jobs stay: their records, or their roots',
	// fence their completions.
	w.removeLocked(func(e *entry) bool { return !e.mem && e.borrow == nil })
	clear(w.known)
	for _, l := range w.loans {
		for _, e := range l.jobs {
			if e.rev != 0 && !e.mem && e.borrow == nil {
				// Out on loan: the thief runs it, as a job running
				// here (runs), and the reload must not queue it again.
				w.known[e.id] = e.rev
			}
		}
	}
	clear(w.locals) // their parents still list them: a completion writes their records
	w.epoch++
	w.mu.Unlock()
	for w.ctx.Err() == nil {
		err := w.register(w.ctx)
		if err == nil {
			break
		}
		if errors.Is(err, ErrNameInUse) {
			w.stopServing(ErrSuperseded)
			return
		}
		if w.lostServer() || !w.sleep(w.st.lease/4) {
			return
		}
	}
	// The workers bucket may have been created again (a restart of the
	// servers, another worker's reopenWorkers): a watch of it resumed
	// on the new one waits for sequences of the old, and a monitor's
	// view would keep workers that left since, whose records its orphan
	// scans then skip as a member's. Read the view again.
	poke(w.rewatch)
	poke(w.reload)
}

// members is the worker's view of the cluster, from the workers bucket.
// queued holds the names in m whose queue is above zero, so that an idle
// thief's pick, which it makes every time it looks for work, costs the
// candidates, not every member.
type members struct {
	mu     sync.Mutex
	m      map[string]beat
	queued map[string]struct{}
}

func newMembers() *members { return &members{m: map[string]beat{}, queued: map[string]struct{}{}} }

// putLocked sets b in the view and keeps queued in step.
func (m *members) putLocked(b beat) {
	m.m[b.Name] = b
	if b.Queue > 0 {
		m.queued[b.Name] = struct{}{}
	} else {
		delete(m.queued, b.Name)
	}
}

func (m *members) set(b beat) {
	m.mu.Lock()
	m.putLocked(b)
	m.mu.Unlock()
}

func (m *members) clear() {
	m.mu.Lock()
	clear(m.m)
	clear(m.queued)
	m.mu.Unlock()
}

func (m *members) remove(name string) {
	m.mu.Lock()
	delete(m.m, name)
	delete(m.queued, name)
	m.mu.Unlock()
}

// size is the number of members in the view, this worker included:
// names known from hints alone do not count.
func (m *members) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m) - m.hintedLocked()
}

func (m *members) has(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.m[name]
	return ok && !b.hinted
}

// replace sets the view to n.
func (m *members) replace(n map[string]beat) {
	m.mu.Lock()
	m.m = n
	clear(m.queued)
	for name, b := range n {
		if b.Queue > 0 {
			m.queued[name] = struct{}{}
		}
	}
	m.mu.Unlock()
}

// monitors is how many workers, the lowest names, watch the workers
// bucket: the candidates for taking over a dead worker's jobs.
const monitors = 3

// monitor reports whether me is among the monitors lowest names of the
// view (with me in it).
func (m *members) monitor(me string) bool { return m.rank(me) < monitors }

// rank is the number of names in the view below me.
func (m *members) rank(me string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	below := 0
	for n, b := range m.m {
		if n < me && !b.hinted {
			below++
		}
	}
	return below
}

// setHint records name's queue as its hint told it. A name the view does
// not hold from the workers bucket enters it marked hinted: a thief may
// pick it, but it counts as no member (lowest, rank, has, size). A hint
// proves no lease: one from a name that holds none (a late hint of a
// worker that left, or one sent by hand) would otherwise stop every
// orphan scan (a name sorting first) or hide a dead worker's records
// from them, for as long as a monitor's watch runs.
//
// At most maxHinted names enter so: hints of names that hold no lease
// (sent by hand, say) must not grow the view without bound; a hint of a
// worker past that limit is lost until its lease is read.
func (m *members) setHint(name string, q int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.m[name]
	if !ok && m.hintedLocked() >= maxHinted {
		return
	}
	b.Name, b.Queue, b.hinted = name, q, !ok || b.hinted
	m.putLocked(b)
}

// maxHinted bounds the names a view holds from hints alone.
const maxHinted = 1024

func (m *members) hintedLocked() int {
	n := 0
	for _, b := range m.m {
		if b.hinted {
			n++
		}
	}
	return n
}

// lowest reports whether me sorts first among the live members.
func (m *members) lowest(me string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for n, b := range m.m {
		if n < me && !b.hinted {
			return false
		}
	}
	return true
}

// pick chooses a victim: the longer queue of two random members with
// queued jobs (best of two), or "" when no member shows any.
func (m *members) pick(me string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var cands []beat
	for n := range m.queued {
		if n != me {
			cands = append(cands, m.m[n])
		}
	}
	switch len(cands) {
	case 0:
		return ""
	case 1:
		return cands[0].Name
	}
	a, b := cands[rand.IntN(len(cands))], cands[rand.IntN(len(cands))]
	if b.Queue > a.Queue {
		a = b
	}
	return a.Name
}

// membersLoop keeps the worker's view of the members. The monitors (the
// workers whose names sort among the 3 lowest) follow the workers bucket:
// a member that leaves (deleted at Close, or purged when its lease
// expires) triggers their orphan scan. The others read the bucket now and
// then (readEvery), and learn of busy workers from their hints: every
// lease renewal reaches 3 watchers, not every worker, and reads are
// spaced by W, so the servers' work for leases is O(W), not O(W²). A
// worker that finds itself among the lowest names starts watching; one
// that a lower name joins stops. The watch
// starts over when the bucket was created again (rewatch): a watch resumed
// on the new bucket would wait for sequences of the old one.
func (w *Worker) membersLoop() {
	for first := true; w.ctx.Err() == nil; first = false {
		if err := w.readMembers(); err != nil {
			w.sleep(w.st.lease / 4)
			continue
		}
		if first {
			// The orphan scan at start, once the view tells whether
			// this worker sorts first: a view of itself alone would
			// have every starting worker list every live record.
			poke(w.scan)
		}
		if w.members.monitor(w.name) {
			w.watchMembers()
			continue
		}
		select {
		case <-w.ctx.Done():
		case <-w.rewatch:
		case <-timeAfter(w.readEvery()):
		}
	}
}

// readEvery is how long a worker that is not a monitor waits between two
// reads of the workers bucket. A read delivers every lease: were each of
// W workers to read every 4 leases, reads alone would cost each worker
// W/4 server messages a lease, O(W²) in all (at W = 256 with a 3 s
// lease, 22 a second per worker against 7 for renewals). The next in
// line (fewer than 2×monitors names below it), which become monitors
// when monitors leave, read every 4 leases; the others every 4 leases
// times ⌈W/8⌉, about 2 messages a lease each whatever W. Each wait is
// drawn within ±25 %, so that workers started together do not read
// together.
func (w *Worker) readEvery() time.Duration {
	d := 4 * w.st.lease
	if w.members.rank(w.name) >= 2*monitors {
		d *= time.Duration((w.members.size() + 7) / 8)
	}
	return d*3/4 + rand.N(d/2)
}

// readMembers replaces the view with the leases in the workers bucket.
func (w *Worker) readMembers() error {
	view := map[string]beat{w.name: {Name: w.name}}
	err := w.st.readWatch(w.ctx, func(ctx context.Context) (jetstream.KeyWatcher, error) {
		return w.st.workers.WatchAll(ctx, jetstream.IgnoreDeletes())
	}, func(e jetstream.KeyValueEntry) {
		var b beat
		if json.Unmarshal(e.Value(), &b) == nil && b.Name == e.Key() {
			view[b.Name] = b
		}
	})
	if err == nil {
		w.members.replace(view)
	}
	return err
}

// watchMembers follows the workers bucket until the worker closes, the
// watch ends, it is restarted (rewatch) or the worker is no longer a
// monitor.
func (w *Worker) watchMembers() {
	kw, err := w.st.workers.WatchAll(w.ctx)
	if err != nil {
		w.sleep(w.st.lease / 4)
		return
	}
	defer w.st.stopWatch(context.Background(), kw)
	w.members.clear() // the watch delivers every live lease first
	w.follow(kw, w.rewatch, w.onMember)
}

// onMember applies one update of the workers bucket; one that makes the
// worker no longer a monitor ends the watch.
func (w *Worker) onMember(e jetstream.KeyValueEntry, initial bool) {
	if e.Operation() != jetstream.KeyValuePut {
		w.members.remove(e.Key())
		poke(w.scan)
		// Clients read the roster at most every lease/2 and may still
		// place a record on the name that left: look again once
		// their rosters and writes in flight have caught up.
		time.AfterFunc(scanAfterLeave(w.st.lease, w.cfg.timeout), func() { poke(w.scan) })
		return
	}
	var b beat
	if json.Unmarshal(e.Value(), &b) == nil && b.Name == e.Key() {
		w.members.set(b)
		if b.Queue > 0 {
			w.signal()
		}
		if !initial && !w.members.monitor(w.name) {
			poke(w.rewatch)
		}
	}
}

// scanAfterLeave is how long after a worker leaves the monitors scan for
// orphaned records a second time: a client's roster is at most lease/2
// old, and a put it sent on an older roster lands within a request
// timeout or two of a retry.
func scanAfterLeave(lease, timeout time.Duration) time.Duration { return lease + 2*timeout }

// setQueue records a victim's queue size as its steal reply told it, so a
// thief does not ask an emptied victim again before its next heartbeat.
func (m *members) setQueue(name string, q int) {
	m.mu.Lock()
	if b, ok := m.m[name]; ok {
		b.Queue = q
		m.putLocked(b)
	}
	m.mu.Unlock()
}

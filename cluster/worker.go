package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
	"github.com/worksteal/steal"
	"github.com/worksteal/steal/coord"
)

// Worker is one member of a cluster: it owns a deque of jobs, runs them on
// a steal.Pool, gives jobs to thieves and steals when idle. See the package
// documentation for the protocol.
type Worker struct {
	name string
	cfg  config
	nc   *nats.Conn
	st   *store

	hmu      sync.RWMutex
	handlers map[string]Handler
	fallback Handler // for types with no handler of their own; nil: none

	mu         sync.Mutex
	dq         coord.Deque[*entry]  // owner at the front, thieves at the back
	known      map[string]uint64    // id -> revision of each job held (queued, running or moving); 0: no record yet
	locals     map[string]*entry    // jobs held that have no record yet (spawned here, see local.go)
	flights    *sync.Cond           // on mu: signalled when a batch about local jobs settles
	retired    [2]map[string]uint64 // id -> revision of records let go lately (completed, given, moved away)
	rotated    time.Time            // when retired[1] became retired[0]
	running    int                  // jobs handed to the pool
	runs       map[string]*entry    // id -> the entry of each job handed to the pool; kept through a fence
	reclaiming map[string]uint64    // id -> revision of a record being looked into by reclaim
	moving     int                  // jobs in a steal or takeover batch not yet settled
	incoming   int                  // submissions being written
	epoch      uint64               // +1 each time the worker leaves idle
	inc        uint64               // lease revision at registration: the incarnation
	hbRev      uint64               // lease revision of the last heartbeat
	started    bool
	closing    bool          // no new job: Close began, or the worker stopped serving
	closed     bool          // Close was called
	proc       string        // tells this Worker value's registrations from another process's
	renewed    time.Time     // when the lease was last renewed (or taken)
	err        error         // why the worker stopped serving on its own
	done       chan struct{} // closed once the worker stopped serving (Done)
	doneOnce   sync.Once

	members *members
	pool    *steal.Pool
	wake    chan struct{} // wakes the dispatcher
	kick    chan struct{} // tells the hint loop that the state changed
	hinted  atomic.Bool   // a hint came since the dispatcher last looked
	scan    chan struct{} // asks for an orphan scan
	reload  chan struct{} // restarts the watch of the own records
	rewatch chan struct{} // restarts the watch of the workers bucket
	subs    []*nats.Subscription
	ctx     context.Context // ends at Close: background loops
	stop    context.CancelFunc
	jobCtx  context.Context // what handlers see; ends at Close
	jobStop context.CancelFunc
	wg      sync.WaitGroup
	stats   stats
}

// entry is one job in the deque. rec is nil for a record that did not
// decode: it is completed with ErrMalformedJob. rev is 0 for a job spawned
// here that has no record yet; the fields after err track such jobs (see
// local.go) and are guarded by Worker.mu, as rev is.
type entry struct {
	id  string
	rev uint64
	rec *record
	err string // why rec is nil

	parent *entry   // the job whose run spawned this one here, if one did
	kids   []*entry // jobs this one's run spawned that had no record then
	flying flight   // the batch in flight that is about this job, if any
	pins   int      // batches in flight fenced on this job's record (its descendants')
	orphan bool     // its completion was refused and it has no record: not done
	gone   bool     // completed or moved away: no longer the parent's to write
	run    string   // tags this entry's completions (outcome.Run); set at its first run
	verify bool     // check the ledger before running it (see alreadyDone)
}

type stats struct {
	completed, stolen, given, takenOver, fenced, refused, duplicates atomic.Int64
}

// WorkerStats counts what a worker did since it started.
type WorkerStats struct {
	Completed  int64 // completions this worker recorded (failures included)
	Stolen     int64 // jobs taken from victims
	Given      int64 // jobs handed to thieves
	TakenOver  int64 // jobs moved here from dead workers
	Fenced     int64 // times the worker found its lease lost and re-registered
	Refused    int64 // completions refused because the job had moved away
	Duplicates int64 // completions refused because the job was already completed
}

// NewWorker makes a worker named name on connection nc; nothing is sent
// until Start. It returns ErrInvalidName or an option's error.
func NewWorker(nc *nats.Conn, name string, opts ...Option) (*Worker, error) {
	cfg, err := buildConfig(opts)
	if err != nil {
		return nil, err
	}
	if !validName(name) {
		return nil, ErrInvalidName
	}
	w := &Worker{
		name: name, cfg: cfg, nc: nc,
		handlers:   map[string]Handler{},
		known:      map[string]uint64{},
		locals:     map[string]*entry{},
		runs:       map[string]*entry{},
		reclaiming: map[string]uint64{},
		retired:    [2]map[string]uint64{{}, {}},
		members:    newMembers(),
		wake:       make(chan struct{}, 1),
		kick:       make(chan struct{}, 1),
		scan:       make(chan struct{}, 1),
		reload:     make(chan struct{}, 1),
		rewatch:    make(chan struct{}, 1),
		proc:       nuid.Next(),
		done:       make(chan struct{}),
	}
	w.flights = sync.NewCond(&w.mu)
	return w, nil
}

// Name is the worker's name.
func (w *Worker) Name() string { return w.name }

// Handle registers h for jobs of type typ, replacing any earlier handler.
// It may be called before or after Start; a job whose type has no handler
// when it runs is recorded as failed with ErrUnknownType. It returns
// ErrInvalidType for an invalid type.
func (w *Worker) Handle(typ string, h Handler) error {
	if !validType(typ) || h == nil {
		return ErrInvalidType
	}
	w.hmu.Lock()
	w.handlers[typ] = h
	w.hmu.Unlock()
	return nil
}

// HandleAll registers h for jobs of every type that has no handler of its
// own (Handle), replacing any earlier catch-all; nil removes it. It may be
// called before or after Start. A program that hands jobs to another
// process, rather than running them itself, registers one here.
func (w *Worker) HandleAll(h Handler) {
	w.hmu.Lock()
	w.fallback = h
	w.hmu.Unlock()
}

// Err reports why the worker stopped serving on its own: ErrSuperseded,
// or an error wrapping ErrServerLost. It is nil while the worker serves,
// and after a Close that found it serving. Any goroutine may call it.
func (w *Worker) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Done is closed once the worker has stopped serving: on its own (Err then
// says why) or in Close. Any goroutine may call it; the program still
// calls Close to wait for the running handlers and release the worker.
func (w *Worker) Done() <-chan struct{} { return w.done }

// Queued is the number of jobs waiting in the worker's deque now, not
// counting the ones its handlers are running.
func (w *Worker) Queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.queueLocked()
}

// Stats returns the worker's counters.
func (w *Worker) Stats() WorkerStats {
	s := &w.stats
	return WorkerStats{s.completed.Load(), s.stolen.Load(), s.given.Load(),
		s.takenOver.Load(), s.fenced.Load(), s.refused.Load(), s.duplicates.Load()}
}

// signal wakes the dispatcher.
func (w *Worker) signal() { poke(w.wake) }

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// busyLocked: a worker is busy while it holds any job in any state.
func (w *Worker) busyLocked() bool {
	return w.dq.Len() > 0 || w.running > 0 || w.moving > 0 || w.incoming > 0
}

// enterLocked is called before the worker takes on a job: leaving idle
// bumps the epoch, which the idle check compares across two waves.
func (w *Worker) enterLocked() {
	if !w.busyLocked() {
		w.epoch++
		poke(w.kick)
	}
}

// adoptLocked queues a record unless the same or a newer revision of it is
// held or was let go lately; front puts it where the owner pops next.
// A record can reach the worker twice (the reply of its own write and the
// watch of its own records), the second time possibly after it completed:
// the retired revisions keep it from running twice.
func (w *Worker) adoptLocked(e *entry, front bool) bool {
	if l := w.locals[e.id]; l != nil {
		if l.flying <= flightKid {
			// The record of a job held here without one: its parent's
			// completion wrote it, and its watch echo may beat the
			// batch's ack.
			w.upgradeLocked(l, e.rev)
			return false
		}
		// Completing or being stolen: a record of the same id from
		// elsewhere (a takeover) is a job of its own.
		delete(w.locals, e.id)
	}
	if r, ok := w.known[e.id]; ok && r >= e.rev {
		return false
	}
	if r := w.runs[e.id]; r != nil && r.rev == e.rev {
		// Running here: a fence forgot it (known) and the reload of our
		// records delivers it again. A second run would race the first,
		// and its Spawns would skip the ids the first run holds.
		return false
	}
	if e.rev <= max(w.retired[0][e.id], w.retired[1][e.id]) {
		return false
	}
	w.enterLocked()
	w.known[e.id] = e.rev
	if front {
		w.dq.PushFront(e)
	} else {
		w.dq.PushBack(e)
	}
	return true
}

// retireLocked lets go of revision rev of a record. Retired revisions are
// kept for two rotation periods, long enough to outlast any late delivery
// of the same record (a request timeout).
func (w *Worker) retireLocked(id string, rev uint64) {
	if w.locals[id] != nil && rev > 0 {
		return // the delete of an older record of an id now held without one
	}
	if r, ok := w.known[id]; ok && r <= rev {
		delete(w.known, id)
		delete(w.locals, id)
	}
	if now := time.Now(); now.Sub(w.rotated) > 2*w.cfg.timeout {
		w.retired[0], w.retired[1], w.rotated = w.retired[1], map[string]uint64{}, now
	}
	if r, ok := w.retired[1][id]; !ok || rev > r {
		w.retired[1][id] = rev
	}
}

// retiredLocked reports whether id was let go lately.
func (w *Worker) retiredLocked(id string) bool {
	_, a := w.retired[0][id]
	_, b := w.retired[1][id]
	return a || b
}

// forgetLocked lets go of e without remembering it as done (retireLocked
// would keep a re-spawn of its id from running).
func (w *Worker) forgetLocked(e *entry) {
	if r, ok := w.known[e.id]; ok && r == e.rev {
		delete(w.known, e.id)
	}
	if w.locals[e.id] == e {
		delete(w.locals, e.id)
	}
}

// liveLocked reports whether e is still the job the worker holds; an
// entry goes stale when its record moved away or was replaced, or when the
// worker fenced itself.
func (w *Worker) liveLocked(e *entry) bool {
	r, ok := w.known[e.id]
	return ok && r == e.rev
}

// popFrontLocked takes the owner's next job, dropping stale entries.
func (w *Worker) popFrontLocked() *entry {
	for {
		e, ok := w.dq.PopFront()
		if !ok {
			return nil
		}
		if w.liveLocked(e) {
			return e
		}
	}
}

// queueLocked counts live queued jobs (stale entries included until popped).
func (w *Worker) queueLocked() int { return w.dq.Len() }

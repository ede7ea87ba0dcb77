// Cluster design
//
// This header is for contributors; the package doc is the user's contract.
//
// The main concepts are:
//
//	worker - a process (or a Worker value) with a name, a lease and a deque.
//	job    - id, type, payload and an optional cost hint; run by the Handler
//	         registered for its type.
//	record - the durable copy of a live job: key q.<owner>.<id> in the
//	         bucket steal_<cluster>_jobs. Its revision (the stream sequence
//	         of its last write) is what every compare-and-swap checks.
//	ledger - key d.<id> in the same bucket: the one recorded completion.
//	lease  - key <name> in steal_<cluster>_workers, a bucket whose values
//	         expire after the lease (WithLease, default 3 s). The revision at
//	         registration is the worker's incarnation.
//
// The deque follows coord.Deque: the owner pushes and pops at the front
// (a spawned job runs next, while its data is warm), thieves take from the
// back, submitted and taken-over jobs enter at the back. A worker runs at
// most WithSlots jobs at once on a steal.Pool; the rest wait in the deque,
// where they can be stolen. Jobs a handler spawns go to the spawning
// worker's own deque, never through a central queue, and by default stay
// in its memory alone until they are stolen or their parent completes
// (local spawn, below).
//
// A steal is a request-reply to the victim (subject
// steal.<cluster>.w.<victim>.steal). The thief asks; the victim decides and
// stays the only writer of its deque: it pops n-n/2 of its n queued jobs
// from the back (or one, StealOne; at most 256 jobs or about 600 KiB) and
// lends them: the reply carries the jobs, under a loan id the thief chose,
// and nothing is written. A job with a record stays under the victim's
// name; the thief's completion deletes it there, conditional on its
// revision, exactly as the victim's own would (lazy ownership). Jobs held
// in memory without a record are lent the same way and returned when
// done; loan.go describes loans, returns and the victim's audit. The thief
// pushes them at its front. A thief that asks for no loan (Client.Steal)
// has the records moved to it instead, in one atomic batch, as below.
//
// A worker with jobs queued beyond its slots says so in a hint (core
// NATS: its name and queue; when its queue grows and every lease/4 while
// it stays, at most every 50 ms), to at most 4 workers the servers pick at
// random (a queue group on steal.<cluster>.hint.any; to all on
// steal.<cluster>.hint in a cluster of 5 or fewer), so that hints and the
// steals they wake cost O(1), not O(W) (TestBusyControlTraffic). A worker
// that runs dry knowing of no queued jobs asks once, and only the workers
// with jobs to spare hear it: one of them, picked by the servers, answers
// with a hint (hungry.go, TestHungryAsksOnlyLenders). An idle
// worker picks its victim as the longer queue of two
// random workers that hinted or whose lease shows queued jobs (best of
// two, as in Sparrow), and backs off from 100 µs to 4 ms while it fails;
// a hint resets the wait. When no worker is known to have queued jobs it
// asks nobody, and waits for a hint.
//
// Every state change of a record is one JetStream write, an atomic batch
// (nats-server 2.12 and newer) where it is more than one message, each
// delete conditional on the record's revision:
//
//	submit     PUT q.<w>.<id>, message id = job id (duplicate window),
//	           conditional on d.<id> having no message; written by the
//	           client (a batch: one atomic batch for up to 256 jobs, dealt
//	           round the workers), and queued by w's watch of its records
//	spawn      nothing (local spawn); or, with WithLocalSpawn(false),
//	           PUT q.<w>.<child>, conditional on the parent's record revision
//	loan       nothing: the thief's completion is the owner's, with the
//	           owner's key and revision
//	move       DEL q.<v>.<id> (revision) + PUT q.<thief>.<id>, per job;
//	           PUT q.<thief>.<id> (anchor's revision) for a job held in memory;
//	           every PUT with a message id of the steal
//	takeover   DEL q.<dead>.<id> (revision) + PUT q.<me>.<id> (its last
//	           write: none or a delete), per job; the DEL alone when this
//	           worker holds a record of the id already
//	complete   DEL q.<w>.<id> (revision) + PUT d.<id> (must not exist)
//	           + PUT q.<w>.<child> per pending child held in memory;
//	           a job held in memory writes no DEL, and its children's PUTs
//	           are conditional on its anchor's revision. Completions with
//	           no pending child written at the same moment share one
//	           atomic batch (group.go)
//	bundle     submit: PUT q.<w>.<bundle id> holding up to 32 jobs, message
//	           id = bundle id, no ledger check; complete: DEL q.<w>.<bundle
//	           id> (revision) + PUT d.<id> (must not exist) per job, so a
//	           live bundle record has none of its jobs' completions recorded;
//	           a refused batch whose record is still ours drops the ids the
//	           ledger holds and goes again (bundle.go)
//
// Deletes in batches carry no message TTL (on nats-server v2.15.2, such a
// delete on file storage comes back as the record it deleted when the
// server is killed and restarted). Once a batch is stored, each of its
// delete markers is replaced by one that expires after 1 s (a plain
// publish, conditional on the marker still being the key's last write), so
// the bucket keeps nothing of finished or moved jobs and listing live
// records costs O(live).
//
// Local spawn. Spawn writes nothing: the child (its id "<parent>-<n>",
// the same in every run of the parent) waits in the worker's deque with no
// record, listed among its parent's children. Its anchor is its nearest
// ancestor that has a record; that ancestor is running on this worker: a
// job spawns only while it runs, and its completion writes the records of
// the children still pending. A child gets a record in one of two ways:
//
//   - a thief steals it: the victim's steal batch writes q.<thief>.<id>
//     (there is nothing to delete), conditional on the anchor's record
//     still being at the revision the victim holds, as a spawn written at
//     once is conditional on its parent's. A victim whose anchor was taken over
//     (it was paused past its lease) has its steal refused and writes
//     nothing; the revision is what every other write of this worker is
//     fenced on, so no second fence (the lease's incarnation, in another
//     bucket, which a batch cannot check) is needed.
//   - its parent completes first: the parent's completion batch writes the
//     records of its children still pending (queued or running here, not
//     completed or stolen) under this worker's name. From then on they are
//     ordinary jobs; a running one completes with DEL + PUT d.<id>. When
//     more children are pending than one batch holds (256 jobs or about
//     600 KiB; the servers take at most 1000 messages a batch), they are
//     written first in batches conditional on the parent's record (or its
//     anchor's), then the completion.
//
// A child that completes before its parent writes d.<id> alone (must not
// exist), plus the records of its own pending children, conditional on its
// anchor: the same rule, one level down. A job's own completion, its
// parent's completion and a steal each claim the in-memory jobs they write
// (under the worker's lock, all at once, waiting while another batch holds
// one), so that no two of them race: a child is never both completed and
// given a record. A batch fenced on an anchor also pins it: the anchor's
// completion (which moves the anchor of the jobs under it) waits until the
// batch is answered, so a refused check means the anchor was taken over. The queue size in
// hints and leases and the busy flag count such
// children like any other job, so thieves see them and Client.Idle is false
// while one is queued or running.
//
// Why a crash loses nothing: until a child has a record or a completion,
// its anchor's record exists (the anchor's completion would have written
// the child's record), and the anchor is a job of this worker. A worker
// killed with SIGKILL has the anchor's record taken over; its re-run spawns
// the same ids, children that had completed find d.<id> at their
// completion (one completion recorded, as for any re-run), and the others
// run. A tree of spawn-and-return jobs therefore costs about as many
// messages as before (most children are pending when their parent
// completes: a PUT in the parent's batch, then DEL + PUT d.<id>), but no
// round trip at spawn; children that complete before their parent (a
// parent that works or waits after spawning) cost one write each.
//
// Liveness. A worker renews its lease every lease/4 with a compare-and-swap
// on its last revision, and only then (thieves learn queue sizes from
// hints). A lease that expires is purged by the server. The three workers
// whose names sort lowest (the monitors) watch the workers bucket; the
// next three read it every 4 leases, the others every 4 leases × ⌈W/8⌉,
// so that a renewal reaches 3 watchers, not every worker, reads cost each
// worker O(1), and the servers' work for leases grows as O(W), not O(W²)
// (TestIdleControlTraffic: idle, each worker costs about 21 server
// messages a second with a 1 s lease, at W=4 as at W=32). On a departure
// the live worker whose name sorts first lists the records of owners that
// hold no lease and moves them to itself (orphan scan; also run at start
// and every 4 leases). A worker whose renewal is refused, and
// whose lease then reads as gone or another incarnation's, has been taken
// for dead: it fences itself: drops its deque, registers again under a new
// incarnation (if another process registered its name meanwhile, it stops
// serving instead: see below), and reloads whatever records still carry its name, but for
// those of jobs it is still running, which are not queued a second time
// (TestFenceKeepsRunningJob). (If that read fails too, it tries again at
// the next renewal.)
// Children held in memory go with the deque; a parent still running here
// writes their records when it completes, if its own record was not taken
// over (else the new owner's re-run spawns them again). A child that was
// running finishes; with nothing pending under it, its completion d.<id>
// may be the one recorded (TestFencedRunningChild: when the re-run
// completed it first, the fenced worker's is refused). A job running
// through the fence that spawns asks the servers whether its anchor's
// record is still this worker's, and goes on if so (TestSpawnAfterFence);
// if not, Spawn returns ErrFenced, and a handler that gives up with it has
// nothing recorded for that run, so the new owner's re-run, which spawns
// the children again, is the one recorded (TestFencedChildGivesUp). A job
// without a record whose completion was refused is not remembered as done:
// a re-run of its anchor here spawns it again.
//
// Each worker also watches its own records, which covers the two ways a
// record reaches it without its own hands: a steal whose reply was lost (the
// records are already under the thief's name) and a takeover into it.
// Revisions it recently let go are remembered so that a record delivered
// twice runs once. No record under a live worker's name is left that the
// worker neither runs nor deletes: one it let go of but that is live still
// (a server killed with SIGKILL can bring back a record it had deleted) is
// deleted when the ledger holds the job's completion, else written again
// (conditional on its revision) and run. Records loaded when the watch
// starts (at start and after a fence) and records taken over are checked
// against the ledger before they run: the record of a completed job is
// deleted, and the job does not run again (TestLetGoRecordNotLeft,
// TestStartSkipsCompletedRecord).
//
// # Invariants
//
//  1. A live job has at most one record, q.<owner>.<id>; moves are atomic.
//     A live job without one is held in the memory of the worker that
//     spawned it, whose record of its anchor (an ancestor running there)
//     is live.
//  2. Only the owner's revision can retire or move a record: a worker that
//     lost a record (taken over while it was paused) has every later write
//     about it refused, because the revision it holds is stale. A thief
//     that borrowed a job writes with the revision the owner lent it, and
//     is refused the same way once the record moved. Writes
//     about a job held in memory are fenced by its anchor's revision; the
//     one exception is the completion of such a job that spawned nothing
//     pending (d.<id> alone): a fenced worker's may be recorded, and it is
//     a completion of a run that did happen.
//  3. d.<id> is written at most once, in the same batch that deletes the
//     record (if the job has one) and writes the records of its pending
//     children: a job is live or completed, and between the two there is
//     no instant where it is neither, nor where its children are.
//  4. A worker counts as busy while it holds a job in any state: queued,
//     running, being moved by a steal or takeover, lent or borrowed,
//     waiting for its in-memory subtree, or being written by a
//     submission, with or without a record. Its epoch rises each time it
//     leaves idle, and every record is written by a busy worker.

package cluster

import (
	"context"
	"encoding/json"
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
	sealed     bool                 // Close waits for the writes in flight: no loan's return starts one
	asked      bool                 // asked who has jobs since it last ran one (hungry.go)
	askedAt    time.Time            // when it last asked
	lenders    bool                 // its last question was answered with a hint (hungry.go)
	completing int                  // outcomes being written off their slots (recordLater)
	group      group                // completions committed together (group.go)
	held       int                  // jobs whose run returned and whose subtree is not finished (loan.go)
	loans      map[string]*loan     // loans of in-memory jobs out with thieves, by id
	borrowed   map[string]*borrowed // loans this worker runs for lenders, by id
	returned   map[string]time.Time // loans returned lately, for the lenders' audits
	finishing  sync.WaitGroup       // completions of subtrees being written
	incoming   int                  // submissions being written
	epoch      uint64               // +1 each time the worker leaves idle
	inc        uint64               // lease revision at registration: the incarnation
	hbRev      uint64               // lease revision of the last heartbeat
	started    bool
	serving    bool          // Start succeeded: Close has a lease, loops and a pool to stop
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
	recq    chan *entry   // completions to write, to an idle recorder (run.go)
	hinted  atomic.Bool   // a hint came since the dispatcher last looked
	rounds  atomic.Int64  // the dispatcher's rounds, for the tests of its wakeups
	goexits atomic.Int64  // runs a handler's runtime.Goexit ended, recorded as failures (run.go)
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

	// hungrySub: the worker is in the lenders' queue group (hungry.go).
	// The hint loop's alone.
	hungrySub *nats.Subscription
}

// entry is one job in the deque. rec is nil for a record that did not
// decode: it is completed with ErrMalformedJob. rev is 0 for a job spawned
// here that has no record yet; the fields after err track such jobs (see
// local.go) and are guarded by Worker.mu, as rev is. The small fields sit
// together: a spawn-heavy tree makes an entry per job, and padding would
// add a fifth to each.
type entry struct {
	id  string
	rev uint64
	rec *record
	err string // why rec is nil

	parent *entry   // the job whose run spawned this one here, if one did
	kids   []*entry // jobs this one's run spawned that had no record then
	pins   int      // batches in flight fenced on this job's record (its descendants')
	run    string   // tags this entry's completions (outcome.Run); set at its first run
	flying flight   // the batch in flight that is about this job, if any
	orphan bool     // its completion was refused and it has no record: not done
	gone   bool     // completed or moved away: no longer the parent's to write
	verify bool     // check the ledger before running it (see alreadyDone)

	// In-memory subtrees (WithSpawnRecords(false), see loan.go).
	mem    bool      // spawned in memory: no record, no completion of its own; set before it is queued
	ranMem bool      // its run returned and it is counted in Worker.held
	abort  bool      // some job of its subtree did not run to the end: record nothing
	up     *entry    // mem: the job whose run spawned it here (nil when borrowed)
	open   int       // its run and its children not finished yet
	out    *outcome  // the outcome of a job with a record, held until its subtree finishes
	outs   []outcome // a bundle's: its jobs' outcomes, those its completion records
	job    *Job      // the Job its next run's handler sees, made with it (memChild); else nil
	lent   *loan     // out on loan to a thief
	borrow *borrowed // the loan it came in; its finish counts towards the return
	owner  string    // borrowed with a record: the lender, under whose name the record is
}

// keyOf is the key of e's record: under this worker's name, or the
// lender's for a job borrowed with its record.
func (w *Worker) keyOf(e *entry) string {
	if e.owner != "" {
		return qKey(e.owner, e.id)
	}
	return qKey(w.name, e.id)
}

type stats struct {
	completed, stolen, given, takenOver, fenced, refused, duplicates atomic.Int64
	memRuns, childFailed, takenBack                                  atomic.Int64
}

// WorkerStats counts what a worker did since it started.
type WorkerStats struct {
	Completed  int64 // completions this worker recorded (failures included)
	Stolen     int64 // jobs taken from victims (not those Client.Steal moved here)
	Given      int64 // jobs handed to thieves
	TakenOver  int64 // jobs moved here from dead workers
	Fenced     int64 // times the worker found its lease lost and re-registered
	Refused    int64 // completions refused because the job had moved away
	Duplicates int64 // completions refused because the job was already completed
	// MemRuns counts runs of in-memory jobs (WithSpawnRecords(false)) on
	// this worker, failed ones included; Completed does not count them.
	MemRuns int64
	// ChildFailures counts in-memory jobs (WithSpawnRecords(false)) whose
	// handler failed; nothing records them.
	ChildFailures int64
	// TakenBack counts jobs lent to thieves (with records or in memory)
	// that this worker took back and queued again: the thief did not hold
	// them, or was gone.
	TakenBack int64
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
		loans:      map[string]*loan{},
		borrowed:   map[string]*borrowed{},
		returned:   map[string]time.Time{},
		retired:    [2]map[string]uint64{{}, {}},
		members:    newMembers(),
		wake:       make(chan struct{}, 1),
		kick:       make(chan struct{}, 1),
		scan:       make(chan struct{}, 1),
		reload:     make(chan struct{}, 1),
		rewatch:    make(chan struct{}, 1),
		recq:       make(chan *entry),
		proc:       nuid.Next(),
		done:       make(chan struct{}),
	}
	w.flights = sync.NewCond(&w.mu)
	warmCodecs.Do(warmJSON)
	return w, nil
}

// warmCodecs: encoding/json builds its coders for a type on first use, by
// reflection, which costs more than a job's own decoding and encoding
// many times over. A worker process builds those of the records and
// outcomes it handles before its first job instead of during it.
var warmCodecs sync.Once

func warmJSON() {
	var r record
	json.Unmarshal([]byte(`{"id":"a","type":"t","bundle":[{"id":"b","type":"t"}]}`), &r)
	json.Marshal(&r)
	json.Marshal(&outcome{})
}

// Name is the worker's name.
func (w *Worker) Name() string { return w.name }

// Handle registers h for jobs of type typ, replacing any earlier handler.
// It may be called before or after Start; a job whose type has no handler
// when it runs is recorded as failed with ErrUnknownType. It returns
// ErrInvalidType for an invalid type and ErrNilHandler for a nil h, and
// changes nothing then.
func (w *Worker) Handle(typ string, h Handler) error {
	switch {
	case !validType(typ):
		return ErrInvalidType
	case h == nil:
		return ErrNilHandler
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
		s.takenOver.Load(), s.fenced.Load(), s.refused.Load(), s.duplicates.Load(),
		s.memRuns.Load(), s.childFailed.Load(), s.takenBack.Load()}
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
	return w.dq.Len() > 0 || w.running > 0 || w.moving > 0 || w.incoming > 0 ||
		w.held > 0 || w.completing > 0 || len(w.loans) > 0 || len(w.borrowed) > 0
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
	if e.mem || e.borrow != nil {
		return true // its record, or its root's, fences its completion
	}
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

// removeLocked takes the queued jobs for which drop is true out of the
// deque, in order, and keeps the others in theirs.
func (w *Worker) removeLocked(drop func(*entry) bool) []*entry {
	var out, keep []*entry
	for w.dq.Len() > 0 {
		e, _ := w.dq.PopFront()
		if drop(e) {
			out = append(out, e)
		} else {
			keep = append(keep, e)
		}
	}
	for _, e := range keep {
		w.dq.PushBack(e)
	}
	return out
}

// queueLocked counts live queued jobs (stale entries included until popped).
func (w *Worker) queueLocked() int { return w.dq.Len() }

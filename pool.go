package steal

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Pool is a work-stealing task pool. Create one with New (the zero Pool
// has no workers, and its methods panic); it is safe for concurrent use
// by any number of goroutines. A pool's workers run until
// Close or Shutdown.
type Pool struct {
	// The fields are grouped by who writes them, each group on cache lines
	// of its own (see padLine). A submission reads the first group and
	// writes the inject queue's tail and, with WithMaxQueued, the backlog
	// count; a worker reads the first group for every task it runs. Packed
	// together, a field that workers write (a worker's count of spinners,
	// the backlog as a batch leaves it) shared a line with one that every
	// submission or task reads, and each write cost the others a miss:
	// the backlog count sat next to halted, which workers read for every
	// task, and capped submissions paid a miss each.

	// Set by New, or once when the pool closes: read everywhere.
	workers []*core
	// victims is every worker a thief may take from: the pool's workers
	// and the spares running for Block. Copied on write (sched_spares.go).
	victims   atomic.Pointer[[]*core]
	nworkers  atomic.Int64 // len(victims)
	metrics   poolMetrics
	maxQueued int64
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	closed    atomic.Bool // no more Submits; set once the inject queue is closed
	// halted is set once ctx is cancelled (halt): from then on no task
	// but a fork-join part starts. Contexts derived from ctx hear of the
	// cancellation on other goroutines a moment later (context.AfterFunc);
	// workers read this first, so that Shutdown's promise holds at once.
	halted        atomic.Bool
	shared        bool          // Default's pool: Close and Shutdown refuse (ErrDefaultPool)
	countStarts   bool          // workers count task starts (for the stall detector)
	profileLabels bool          // WithProfileLabels
	ctxEpoch      atomic.Uint64 // bumped when a group context is cancelled (group_ctx.go)
	trace         *schedTrace
	stalls        *stallDetector
	start         time.Time // for timeline timestamps
	_             padLine

	inject injectQueue // pads its producers' words and its consumers' itself
	_      padLine

	// WithMaxQueued's backlog: every capped submission adds to queued,
	// every batch a worker picks up subtracts.
	queued      atomic.Int64 // external tasks no worker has picked up, when maxQueued > 0
	roomWaiters atomic.Int64 // Submits blocked on a full backlog
	roomMu      sync.Mutex
	room        chan struct{} // closed and replaced when picked-up tasks make room
	_           padLine

	// The wakeup protocol (sched_idle.go): every submission reads nidle and
	// nspinning; workers write them as they look for work and park.
	nspinning atomic.Int64 // workers looking for work to steal
	nidle     atomic.Int64 // workers on the idle list
	idleMu    sync.Mutex
	idle      []*core
	blocked   atomic.Int64 // spares running for Block; the pool is not done while > 0
	sleepers  atomic.Int64 // workers asleep inside a task (sched_wait.go); likewise
	_         padLine

	// Written by workers now and then: timed queue waits, panics, spares.
	waits       waitHist
	runs        waitHist // Stats.TaskTime, of the tasks waits times
	panics      panicSink
	spares      spareSet
	workersDone sync.WaitGroup
}

// padLine keeps the fields before it and after it on different cache
// lines (64 bytes on the machines Go runs on most).
type padLine [64]byte

// New starts a pool with the given options. Without WithWorkers it runs
// runtime.GOMAXPROCS(0) workers, at most MaxWorkers. The workers park at
// once and use no CPU until work arrives. A nil option panics, naming its
// place among opts.
func New(opts ...Option) *Pool {
	cfg := config{workers: min(runtime.GOMAXPROCS(0), MaxWorkers)}
	for i, o := range opts {
		if o == nil {
			panic(fmt.Sprintf("steal: New: option %d is nil", i))
		}
		o(&cfg)
	}
	cfg.fromEnv()
	p := &Pool{
		done:          make(chan struct{}),
		maxQueued:     int64(cfg.maxQueued),
		countStarts:   cfg.stallAfter > 0,
		profileLabels: cfg.profileLabels,
		room:          make(chan struct{}),
	}
	p.inject.init(p)
	p.metrics.init(&cfg)
	p.panics.init(&cfg)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.ctxEpoch.Store(1)
	p.workers = make([]*core, cfg.workers)
	for i := range p.workers {
		p.workers[i] = newCore(p, i)
	}
	victims := slices.Clone(p.workers)
	p.victims.Store(&victims)
	p.nworkers.Store(int64(len(victims)))
	p.start = time.Now()
	if cfg.timeline > 0 {
		for _, w := range p.workers {
			w.timeline = newTimeline(p.start, cfg.timeline)
			w.watch.on = true
		}
	}
	// Every worker starts parked: no task exists before New returns, so
	// the wakeup protocol's invariant holds with all of them on the idle
	// list and none spinning, and the first producer wakes one. Worker 0
	// is pushed last, to be woken first.
	p.idleMu.Lock()
	for i := len(p.workers) - 1; i >= 0; i-- {
		p.workers[i].startParked = true
		p.pushIdle(p.workers[i])
	}
	p.idleMu.Unlock()
	p.workersDone.Add(len(p.workers))
	for _, w := range p.workers {
		go w.loop()
	}
	if cfg.traceEvery > 0 {
		p.trace = startSchedTrace(p, cfg.traceEvery, cfg.traceOut)
	}
	if cfg.stallAfter > 0 {
		p.stalls = startStallDetector(p, cfg.stallAfter, cfg.stallReport)
	}
	return p
}

// Workers returns the number of workers.
func (p *Pool) Workers() int {
	p.made("Pool.Workers")
	return len(p.workers)
}

// Submit queues fn to run on the pool: fn goes to the pool's inject queue
// and a parked worker is woken if none is looking for work. Submit returns
// nil once fn is queued; a queued task is never dropped without a count.
//
// fn's Context carries ctx's values and deadline, and is cancelled when ctx
// is, when the pool's context is (see Shutdown), or when fn returns; the
// tasks fn spawns see ctx too, but not that last cancellation, since they
// may start after fn has returned (see Worker.Context). If ctx
// or the pool's context is done by the time a worker picks fn up, fn is not
// run: it is skipped and counted in Stats.Skipped. A nil ctx means
// context.Background().
//
// With WithMaxQueued, Submit blocks while the backlog is full, until there
// is room (nil), ctx ends (ctx.Err()) or Close or Shutdown begins
// (ErrClosed, fn not queued). It
// never waits when called from a task of the same pool, since only the
// pool's workers can make room: the task is then queued past the cap.
// Submit returns ErrClosed once Close or Shutdown has begun.
//
// From inside a task, prefer Worker.Spawn: it keeps the task on the same
// worker and never blocks.
//
// Cost: one fetch-add and one atomic store, no lock and no allocation; the
// task costs the pool 16 bytes while it waits, and the worker that picks
// it up gives it a 48-byte task record from a slab of 10. A ctx other than
// context.Background() adds a small allocation now; the task's own
// context, derived from ctx and registered with it, is made only if the
// task asks for it (Worker.Context) or forks (Join, Fork2, For,
// NewGroup), and the same holds for each task fn spawns.
// docs/benchmarks.md has the measurements of submission.
func (p *Pool) Submit(ctx context.Context, fn func(w *Worker)) error {
	p.made("Pool.Submit")
	if fn == nil {
		nilFunc("Pool.Submit")
	}
	e := entry{fn: *(*unsafe.Pointer)(unsafe.Pointer(&fn))}
	if ctx == nil {
		ctx = context.Background()
	} else if ctx != context.Background() && ctx != context.TODO() {
		e.x = &waitStamp{Context: ctx, at: -1}
	}
	return p.submitEntryWait(ctx, e)
}

// made panics on a Pool that New did not make: a zero Pool, or a nil
// *Pool, has no workers to run anything on, and used, it failed with a
// nil dereference deep inside the scheduler, or not at all.
func (p *Pool) made(call string) {
	if p == nil || p.done == nil {
		panic("steal: " + call + " on a Pool that New did not make (its zero value and a nil *Pool have no workers); " +
			"make it with New, or use Default")
	}
}

// nilFunc panics for a nil function passed to call. Refused there, the
// mistake shows at the caller's line, and nothing is queued; run later as
// a task, the nil function would fail on a worker with a nil dereference
// that says neither what was nil nor who passed it.
func nilFunc(call string) {
	panic("steal: " + call + " called with a nil function")
}

// submitWait is Submit for a record made by its submitter.
func (p *Pool) submitWait(ctx context.Context, t *task) error {
	return p.submitEntryWait(ctx, entry{fn: unsafe.Pointer(t), x: recordMark})
}

// submitEntryWait queues e, waiting for room as Submit says.
func (p *Pool) submitEntryWait(ctx context.Context, e entry) error {
	for {
		err := p.submitEntry(e, false)
		if err != ErrBacklogFull {
			return err
		}
		if err := p.waitRoom(ctx, e); err != ErrBacklogFull {
			return err
		}
	}
}

// TrySubmit is Submit without waiting: it returns ErrBacklogFull instead of
// blocking when WithMaxQueued tasks are already waiting for a worker to pick
// them up. Like Submit, it returns ErrClosed once Close or Shutdown has
// begun, backlog full or not.
func (p *Pool) TrySubmit(fn func(w *Worker)) error {
	p.made("Pool.TrySubmit")
	if fn == nil {
		nilFunc("Pool.TrySubmit")
	}
	return p.submitEntry(entry{fn: *(*unsafe.Pointer)(unsafe.Pointer(&fn))}, false)
}

// submitTask queues a record made by its submitter; see submitEntry.
func (p *Pool) submitTask(t *task, force bool) error {
	return p.submitEntry(entry{fn: unsafe.Pointer(t), x: recordMark}, force)
}

// submitEntry queues e on the inject queue and wakes a worker. Past the
// WithMaxQueued cap it refuses e, unless force: then e is queued uncounted.
// A refusal says ErrClosed rather than ErrBacklogFull once closing has
// begun, which is what ends the waits for room (see waitRoom); the check
// costs only the refusals.
func (p *Pool) submitEntry(e entry, force bool) error {
	counted := false
	if p.maxQueued > 0 && !force {
		if !p.takeQueued() {
			if p.closed.Load() {
				return ErrClosed
			}
			return ErrBacklogFull
		}
		counted = true
	}
	return p.queueEntry(e, counted)
}

// queueEntry queues e on the inject queue and wakes a worker; counted says
// e holds a place in the backlog (takeQueued), given back if the pool is
// closed.
func (p *Pool) queueEntry(e entry, counted bool) error {
	if !p.inject.put(p.markSubmitted(e, counted)) {
		if counted {
			p.releaseQueued(1)
		}
		return ErrClosed
	}
	p.wakep()
	return nil
}

// Go runs fn on the pool: Submit with context.Background() for functions
// that do not need the *Worker handle. It blocks like Submit when the
// backlog is full, and returns ErrClosed once Close or Shutdown has begun.
//
// Cost: less than Submit. fn is queued as it is, not wrapped, and since
// no handle is given out, the worker that runs fn reuses its task record
// for the next Go function it takes: once the workers have run a few, a
// Go task allocates only its 16-byte place in the inject queue (and, one
// time in 64, the stamp that times its queue wait: see
// WithQueueWaitSampling). BenchmarkSubmitProducers and
// BenchmarkSubmitEmpty compare it with a buffered channel of funcs
// (docs/benchmarks.md, docs/scaling.md).
func (p *Pool) Go(fn func()) error {
	p.made("Pool.Go")
	if fn == nil {
		nilFunc("Pool.Go")
	}
	return p.submitEntryWait(context.Background(), entry{fn: *(*unsafe.Pointer)(unsafe.Pointer(&fn)), x: goMark})
}

// Close stops intake, runs every task already queued and everything those
// tasks spawn, and returns once all worker goroutines have exited. What a
// task starts through its *Worker (Spawn, NewGroup, Fork2, Join2)
// runs; what it starts through the Pool (Submit, Go, PoolSpawn, the Go of
// a Pool.Group) is intake, refused with ErrClosed once Close has begun (a
// Pool.Group's Wait returns it). It
// returns the panics kept from tasks (the first 64, see WithPanicLimit)
// joined with errors.Join, plus a *DroppedPanicsError if more panicked, or
// nil if a panic handler took them, and a *SkippedError counting the tasks
// spawned with Worker.Spawn that were skipped because a context a user
// cancelled ended first (see the package doc's "Spawned tasks run").
// Close is idempotent; a second call
// waits like the first and returns nil. On the pool Default returns, Close
// changes nothing and returns ErrDefaultPool. Called from a task of the same
// pool, Close returns ErrInsideTask at once and changes nothing.
func (p *Pool) Close() error {
	p.made("Pool.Close")
	return p.Shutdown(context.Background())
}

// Shutdown is Close with a deadline: it returns ctx.Err() if ctx ends before
// the queued tasks have run, and cancels the pool's context, which every
// task's Context derives from, so that running tasks can stop early. Tasks
// that have not started by then are skipped (counted in Stats.Skipped, and
// reported by the Group.Wait, Future.Wait or Pool.Run that waits for them),
// except the halves of Join, Fork2 and For, which their forker needs. The
// workers then finish in the background and exit; a later Close returns
// their panics. A pool whose tasks have all run when ctx ends, such as
// one idle when Shutdown is called, is not cut short: Shutdown waits for
// its workers to exit and returns what Close would, even for a ctx that
// had already ended. Called from a task of the same pool, Shutdown returns
// ErrInsideTask at once and changes nothing. A nil ctx means
// context.Background(), which makes Shutdown Close.
func (p *Pool) Shutdown(ctx context.Context) error {
	p.made("Pool.Shutdown")
	if ctx == nil {
		ctx = context.Background()
	}
	if p.shared {
		return ErrDefaultPool
	}
	if p.callerCore() != nil {
		return ErrInsideTask
	}
	p.inject.close() // first: a Submit that got in is counted in inject.len
	p.closed.Store(true)
	if p.maxQueued > 0 {
		// After closed is set: the Submits waiting for room wake, retry,
		// and get ErrClosed instead of waiting for the drain (waitRoom).
		p.wakeRoomWaiters()
	}
	p.idleMu.Lock()
	p.doneIfQuiescent()
	p.idleMu.Unlock()
	finished := make(chan struct{})
	fromReport := p.stalls.inReport()
	go func() {
		p.workersDone.Wait()
		if p.trace != nil {
			p.trace.stop() // also after a Shutdown that gave up waiting
		}
		if p.stalls != nil {
			p.stalls.stopOnce(!fromReport)
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-ctx.Done():
		select {
		case <-p.done:
			// Every task has run; only the workers' exit is left, which
			// runs no task and does not wait for one.
			<-finished
		default:
			p.halt()
			return ctx.Err()
		}
	}
	p.halt()
	return p.panics.take()
}

// halt cancels the pool's context, then marks the pool halted: a worker
// that sees the mark finds the context's cause set.
func (p *Pool) halt() {
	p.cancel()
	p.halted.Store(true)
}

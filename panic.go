package steal

import (
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// defaultPanicLimit is how many panics a pool keeps for Close without
// WithPanicLimit: enough to see what went wrong, little enough that a task
// that panics every time cannot fill the memory.
const defaultPanicLimit = 64

// panicSink collects recovered panics for Close, up to a limit, or hands
// them to a handler. Beyond the limit it only counts.
type panicSink struct {
	handler atomic.Pointer[func(*PanicError)] // nil: collect
	limit   int

	mu           sync.Mutex
	errs         []error // kept, not yet taken
	dropped      uint64  // dropped, not yet taken
	keptTotal    uint64  // kept since the pool started
	droppedTotal uint64  // dropped since the pool started
	// Tasks spawned inside the pool (Worker.Spawn) that nobody waits for
	// and that were skipped, not yet reported by Close: see skipSpawned.
	skipped   int
	skipCause error
	// futures holds the panics of futures nobody has waited for yet, in
	// the order they happened, for Close (addFuture).
	futures []futurePanic
	// Failures of futures past the limit, which futures has no room for:
	// only counted, until a waiter claims one or Close takes them. Each
	// such future's latch carries the round they were counted in
	// (outsideWait.over), so that a claim can tell one of them from a
	// future claimed before, or taken by an earlier Close.
	round       uint64 // bumped by take
	overPanics  int
	overSkipped int
	overCause   error // why the first of overSkipped was skipped
}

// futurePanic is how a future's task failed (a *PanicError) or why it did
// not run (a *SkippedError), with the future's latch, which a waiter's
// claim matches.
type futurePanic struct {
	l *latch
	e error
}

// init sets the sink up from the pool's options.
func (s *panicSink) init(c *config) {
	s.limit = defaultPanicLimit
	if c.panicLimit != nil {
		s.limit = *c.panicLimit
	}
	s.setHandler(c.panicHandler)
}

func (s *panicSink) setHandler(h func(*PanicError)) {
	if h == nil {
		s.handler.Store(nil)
		return
	}
	s.handler.Store(&h)
}

func (s *panicSink) add(e *PanicError) {
	if h := s.handler.Load(); h != nil {
		(*h)(e)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keep(e)
}

// keep keeps e for Close, or counts it as dropped past the limit. Caller
// holds mu.
func (s *panicSink) keep(e error) {
	if len(s.errs) < s.limit {
		s.errs = append(s.errs, e)
		s.keptTotal++
		return
	}
	s.dropped++
	s.droppedTotal++
}

// addFuture takes the panic of a future's task, which the future keeps
// for its waiters too. When it happens nobody can tell whether a waiter
// will come, so a handler hears of it at once; without one it is held
// until a waiter claims it (claimFuture) or Close takes it: every panic
// reaches a waiter, the handler, or Close.
func (s *panicSink) addFuture(l *latch, e *PanicError) {
	if h := s.handler.Load(); h != nil {
		(*h)(e)
		return
	}
	s.holdFuture(l, e)
}

// holdFuture holds e, the failure of the future whose latch is l, until a
// waiter claims it or Close takes it: a panic (addFuture) or a skip.
func (s *panicSink) holdFuture(l *latch, e error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.futures) >= s.limit {
		// Memory held for failures stays bounded: past the limit a
		// future's failure is only counted, for Close to report as a
		// dropped panic or in its *SkippedError. A waiter still gets it,
		// and its claim takes it out of the count: counted at once, a
		// panic every waiter had seen was reported again by Close.
		l.waiter().over = s.round + 1
		if se, ok := e.(*SkippedError); ok {
			if s.overSkipped == 0 {
				s.overCause = se.Cause
			}
			s.overSkipped++
			return
		}
		s.overPanics++
		return
	}
	s.futures = append(s.futures, futurePanic{l, e})
}

// claimFuture forgets the held failure of the future whose latch is l,
// now that a waiter has it. Only futures that panicked or were skipped get
// here.
func (s *panicSink) claimFuture(l *latch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.futures {
		if f.l == l {
			s.futures = append(s.futures[:i], s.futures[i+1:]...)
			return
		}
	}
	if o := l.outside.Load(); o != nil && o.over == s.round+1 {
		o.over = 0 // claimed once: a second Wait changes nothing
		if _, ok := l.err.(*SkippedError); ok {
			s.overSkipped--
		} else {
			s.overPanics--
		}
	}
}

// take returns the collected panics joined, with a *DroppedPanicsError if
// any were dropped, and forgets them. The panics of futures nobody has
// waited for join them now, within the same limit.
func (s *panicSink) take() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.futures {
		if se, ok := f.e.(*SkippedError); ok {
			s.skipSpawnedLocked(1, se.Cause)
			continue
		}
		s.keep(f.e)
	}
	s.futures = nil
	s.dropped += uint64(s.overPanics)
	s.droppedTotal += uint64(s.overPanics)
	if s.overSkipped > 0 {
		s.skipSpawnedLocked(s.overSkipped, s.overCause)
	}
	s.overPanics, s.overSkipped, s.overCause = 0, 0, nil
	s.round++ // the futures counted so far are reported: claims no longer count
	if s.dropped > 0 {
		s.errs = append(s.errs, &DroppedPanicsError{Count: s.dropped, Limit: s.limit})
	}
	if s.skipped > 0 {
		s.errs = append(s.errs, &SkippedError{Count: s.skipped, Cause: s.skipCause})
	}
	err := errors.Join(s.errs...)
	s.errs, s.dropped, s.skipped, s.skipCause = nil, 0, 0, nil
	return err
}

// skipSpawned notes a task spawned inside the pool (Worker.Spawn) that
// was skipped with nobody waiting for it, for Close to report: a task a
// user spawned runs, or an error someone receives says it did not (see
// the package doc's "Spawned tasks run"). Only the first cause is kept.
func (s *panicSink) skipSpawned(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipSpawnedLocked(1, cause)
}

// skipSpawnedLocked is skipSpawned of n tasks with mu held.
func (s *panicSink) skipSpawnedLocked(n int, cause error) {
	if s.skipped == 0 {
		s.skipCause = cause
	}
	s.skipped += n
}

// counts returns how many panics were kept and dropped since the start.
func (s *panicSink) counts() (kept, dropped uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keptTotal, s.droppedTotal
}

// SetPanicHandler sends every panic recovered from a plain task (Submit,
// TrySubmit, Go, Worker.Spawn) or a future (Spawn, PoolSpawn: its waiters
// get it too) from now on to h, on the worker that recovered it, instead
// of keeping it for Close. h must not panic and should
// return quickly: the worker runs nothing else meanwhile. A nil h goes back
// to keeping panics for Close, up to the limit of WithPanicLimit; panics
// already kept stay kept. It replaces the handler of WithPanicHandler, and on
// Default() the logging handler. Any goroutine may call it at any time; a
// panic recovered while it runs goes to the old handler or the new one.
func (p *Pool) SetPanicHandler(h func(*PanicError)) {
	p.made("Pool.SetPanicHandler")
	p.panics.setHandler(h)
}

// newPanicError captures a recovered value with the current stack. Called
// from a deferred function, the stack still shows where the panic started.
func newPanicError(r any, worker int) *PanicError {
	if pe, ok := r.(*PanicError); ok {
		return pe // re-raised by Join or Wait further down: keep the origin
	}
	return &PanicError{Value: r, Stack: debug.Stack(), Worker: worker}
}

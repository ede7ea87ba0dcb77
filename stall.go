package steal

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Stall describes a worker stuck in one task: for longer than the
// detector's threshold it started no task and took no step (see
// WithStallDetector) while tasks waited to run.
type Stall struct {
	// Worker is the stalled worker's ID: one of the pool's own (0 to
	// Workers()-1), or a spare (from Workers() up) stuck in a task while
	// it stands in for a worker blocked in Worker.Block or waiting after
	// lending it a task (see the package doc's "Waiting inside the
	// pool"). A worker with a spare standing in for it is
	// not reported itself: its spare is, if stuck.
	Worker  int
	Running time.Duration // at least this long without starting a task or taking a step
	// Queued is the number of tasks waiting to run anywhere in the pool
	// when the report was made: in the inject queue and in the runnext,
	// ring and fork-join deque of every worker and running spare.
	Queued int
	// InjectQueued is how many of those wait in the inject queue: tasks
	// submitted from outside the pool, and ring overflow.
	InjectQueued int
	// OwnQueued is how many of those wait in the stalled worker's own
	// runnext, ring and fork-join deque.
	OwnQueued int
}

func defaultStallReport(s Stall) {
	slog.Warn("steal: worker stuck in one task while tasks wait",
		"worker", s.Worker, "running", s.Running, "queued", s.Queued,
		"inject", s.InjectQueued, "own", s.OwnQueued)
}

// stepped tells the stall detector that w's task is making progress. It
// runs on every fork-join step, so it only loads w's own flag, which is set
// at most once per look of a detector and never without one.
func (c *core) stepped() {
	if c.probe.Load() != 0 {
		c.probe.Store(0)
	}
}

// stallDetector samples the workers' progress: the pool's own and the
// spares running for them.
type stallDetector struct {
	p      *Pool
	after  time.Duration
	report func(Stall)
	watch  map[*core]*stallWatch // the workers and spares of the last look
	idle   map[*core]bool        // scratch: who is on the idle list
	quit   chan struct{}
	done   chan struct{}
	once   sync.Once
	gid    atomic.Int64 // the detector goroutine's id: report runs there
}

// stallWatch is what the detector remembers of one worker.
type stallWatch struct {
	started, parks uint64    // the worker's counters at the last look
	since          time.Time // the last look that saw it make progress
	reported       bool      // the stall since then has been reported
	seen           bool      // among the victims at this look
}

func startStallDetector(p *Pool, after time.Duration, report func(Stall)) *stallDetector {
	if report == nil {
		report = defaultStallReport
	}
	d := &stallDetector{p: p, after: after, report: report,
		watch: make(map[*core]*stallWatch), idle: make(map[*core]bool),
		quit: make(chan struct{}), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *stallDetector) run() {
	defer close(d.done)
	d.gid.Store(goid())
	tick := time.NewTicker(max(d.after/2, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			d.look()
		case <-d.quit:
			return
		}
	}
}

// look reports every worker or running spare that has made no progress
// for the threshold while tasks wait. The queues are counted only when one
// is stuck.
//
// The times come from the clock around each worker's probe, not from the
// tick: a look that runs late (the detector's goroutine waiting for a
// processor, or for idleMu) must not lengthen the interval a worker is
// said to have had for showing progress. since is read after the probe is
// set and the stretch is measured to a reading before the probe is next
// looked at, so Running is a lower bound.
//
// A worker blocked with a spare standing in for it (Block, or a wait after
// lending) counts as progressing: the spare is watched in its place, so a
// stuck spare is reported while the worker it stands for is not.
func (d *stallDetector) look() {
	victims := *d.p.victims.Load()
	d.markIdle()
	counted := false
	var inject, total int
	for _, w := range victims {
		st := d.watch[w]
		if st == nil {
			st = &stallWatch{}
			d.watch[w] = st
		}
		st.seen = true
		before := time.Now()
		if d.progressed(st, w) || st.since.IsZero() {
			st.since, st.reported = time.Now(), false
			continue
		}
		running := before.Sub(st.since)
		if running < d.after || st.reported {
			continue
		}
		if !counted {
			inject, total = countQueued(d.p, victims)
			counted = true
		}
		if total == 0 {
			continue
		}
		st.reported = true
		d.report(Stall{Worker: w.id, Running: running, Queued: total,
			InjectQueued: inject, OwnQueued: w.queued()})
	}
	// A spare that retired starts afresh if it runs again.
	for w, st := range d.watch {
		if !st.seen {
			delete(d.watch, w)
		}
		st.seen = false
	}
}

// progressed reports whether w is parked or asleep in a wait, or blocked
// with a spare standing in for it, or since the last look has started a
// task, parked, or taken a step; and sets its probe for the next look.
func (d *stallDetector) progressed(st *stallWatch, w *core) bool {
	started, parks := w.running.Load(), w.stats.parks.load()
	stepped := w.probe.Swap(1) == 0 // the worker cleared it since we set it
	moved := started != st.started || parks != st.parks
	st.started, st.parks = started, parks
	return d.idle[w] || stepped || moved || w.blocking.Load()
}

// markIdle records who is on the idle list: parked, or asleep in a wait
// with nothing to help with. Neither is stuck.
func (d *stallDetector) markIdle() {
	clear(d.idle)
	p := d.p
	p.idleMu.Lock()
	for _, w := range p.idle {
		d.idle[w] = true
	}
	p.idleMu.Unlock()
}

// countQueued counts the tasks waiting to run: it returns the inject
// queue's length and the total, over the queues of every victim.
func countQueued(p *Pool, victims []*core) (inject, total int) {
	inject = p.inject.len()
	total = inject
	for _, w := range victims {
		total += w.queued()
	}
	return inject, total
}

// queued counts the tasks in c's runnext, ring and fork-join deque.
func (c *core) queued() int {
	n := c.ring.Len() + c.jobs.Len()
	if c.runnext.Load() != nil {
		n++
	}
	return n
}

// stopOnce ends the detector and, unless wait is false, waits for it; any
// number of calls is fine. Close called from report must not wait: the
// detector cannot end before report returns.
func (d *stallDetector) stopOnce(wait bool) {
	d.once.Do(func() { close(d.quit) })
	if wait {
		<-d.done
	}
}

// inReport reports whether the caller runs on the detector's goroutine,
// that is, inside report.
func (d *stallDetector) inReport() bool {
	return d != nil && d.gid.Load() == goid()
}

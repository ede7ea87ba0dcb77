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
	Worker  int           // the stalled worker
	Running time.Duration // at least this long without starting a task or taking a step
	// Queued is the number of tasks waiting to run anywhere in the pool
	// when the report was made: in the inject queue and in every worker's
	// runnext, ring and fork-join deque.
	Queued int
	// InjectQueued is how many of those wait in the inject queue: tasks
	// submitted from outside the pool, and ring overflow.
	InjectQueued int
	// OwnQueued is how many of those wait in the stalled worker's own
	// runnext, ring and fork-join deque.
	OwnQueued int
}

// WithStallDetector reports, through report, every worker stuck in one task
// for longer than threshold while tasks wait to run anywhere in the pool:
// in the inject queue, or in any worker's runnext, ring or fork-join deque.
// Stuck means the worker started no task and took no step in that time,
// where a step is a call of Join, Fork2 or Worker.Spawn, or one sub-range
// of For or ForRange. A stall usually means a task that blocks (I/O, a
// lock, a channel, time.Sleep) without Worker.Block, or that loops without
// any of those calls.
//
// The detector stays quiet for a long task when nothing waits, for
// fork-join code that keeps splitting or running nested tasks, however
// long its root task runs, for a task waiting in Join, Group.Wait or
// Future.Wait (it runs other tasks, sleeps on the idle list, or waits
// while a spare runs a submitted task it came upon), for a parked worker,
// and for a task blocked in Worker.Block while its spare works or parks.
//
// report is called once per stall, from the detector's goroutine, and
// again for the same worker only after it has made progress; the detector
// waits for report to return, and report must not panic. report may call
// Close or Shutdown: they wait for the workers as usual, but not for report
// to return. nil means a log/slog warning. A threshold of zero or less means no detector.
//
// The detector is the pool's sysmon: one goroutine that wakes every
// threshold/2, compares each worker's counts of started tasks and parks
// with its previous look, and sets a flag on each worker that the worker
// clears at its next step. A stall is therefore reported between threshold
// and about twice threshold after the worker's last step. Tasks pay no
// timer and no clock read: a step costs one load of the worker's own flag,
// and a store once per look. Without this option there is no detector
// goroutine and nothing sets the flag. While enabled it wakes 2/threshold
// times a second even when the pool is idle.
//
// A worker whose thread the operating system leaves unrun for threshold
// (more busy threads than cores) takes no step either, and is reported
// like a stuck one: choose a threshold well above the scheduling delays the
// machine is expected to have.
func WithStallDetector(threshold time.Duration, report func(Stall)) Option {
	return func(c *config) {
		c.stallAfter = threshold
		c.stallReport = report
	}
}

func defaultStallReport(s Stall) {
	slog.Warn("steal: worker stuck in one task while tasks wait",
		"worker", s.Worker, "running", s.Running, "queued", s.Queued,
		"inject", s.InjectQueued, "own", s.OwnQueued)
}

// stepped tells the stall detector that w's task is making progress. It
// runs on every fork-join step, so it only loads w's own flag, which is set
// at most once per look of a detector and never without one.
func (w *worker) stepped() {
	if w.probe.Load() != 0 {
		w.probe.Store(0)
	}
}

// stallDetector samples the workers' progress.
type stallDetector struct {
	p      *Pool
	after  time.Duration
	report func(Stall)
	watch  []stallWatch
	idle   []bool // scratch: which workers are on the idle list
	own    []int  // scratch: tasks queued on each worker
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
}

func startStallDetector(p *Pool, after time.Duration, report func(Stall)) *stallDetector {
	if report == nil {
		report = defaultStallReport
	}
	n := len(p.workers)
	d := &stallDetector{p: p, after: after, report: report,
		watch: make([]stallWatch, n), idle: make([]bool, n), own: make([]int, n),
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

// look reports every worker that has made no progress for the threshold
// while tasks wait. The queues are counted only when some worker is stuck.
//
// The times come from the clock around each worker's probe, not from the
// tick: a look that runs late (the detector's goroutine waiting for a
// processor, or for idleMu) must not lengthen the interval a worker is
// said to have had for showing progress. since is read after the probe is
// set and the stretch is measured to a reading before the probe is next
// looked at, so Running is a lower bound.
func (d *stallDetector) look() {
	d.markIdle()
	counted := false
	var inject, total int
	for i, w := range d.p.workers {
		st := &d.watch[i]
		before := time.Now()
		if d.progressed(i, w) || st.since.IsZero() {
			st.since, st.reported = time.Now(), false
			continue
		}
		running := before.Sub(st.since)
		if running < d.after || st.reported {
			continue
		}
		if !counted {
			inject, total = d.countQueued()
			counted = true
		}
		if total == 0 {
			continue
		}
		st.reported = true
		d.report(Stall{Worker: i, Running: running, Queued: total,
			InjectQueued: inject, OwnQueued: d.own[i]})
	}
}

// progressed reports whether worker i is parked or asleep in a wait, or
// since the last look has started a task, parked, or taken a step; and
// sets its probe for the next look.
func (d *stallDetector) progressed(i int, w *worker) bool {
	st := &d.watch[i]
	started, parks := w.running.Load(), w.stats.parks.load()
	stepped := w.probe.Swap(1) == 0 // the worker cleared it since we set it
	moved := started != st.started || parks != st.parks
	st.started, st.parks = started, parks
	return d.idle[i] || stepped || moved || w.blocking.Load()
}

// markIdle records which workers are on the idle list: parked, or asleep
// in a wait with nothing to help with. Neither is stuck.
func (d *stallDetector) markIdle() {
	clear(d.idle)
	p := d.p
	p.idleMu.Lock()
	for _, w := range p.idle {
		if w.id < len(d.idle) { // spares (Block) park here too; the detector watches the pool's own
			d.idle[w.id] = true
		}
	}
	p.idleMu.Unlock()
}

// countQueued counts the tasks waiting to run: it returns the inject
// queue's length and the total, and leaves each worker's own in d.own.
func (d *stallDetector) countQueued() (inject, total int) {
	inject = d.p.inject.len()
	total = inject
	for i, w := range d.p.workers {
		n := w.ring.Len() + w.jobs.Len()
		if w.runnext.Load() != nil {
			n++
		}
		d.own[i] = n
		total += n
	}
	return inject, total
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

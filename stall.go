package steal

import (
	"log/slog"
	"sync"
	"time"
)

// Stall describes a worker that has been running one task for longer than
// the detector's threshold while tasks wait in its queues.
type Stall struct {
	Worker  int           // the stalled worker
	Running time.Duration // at least this long on the same task
	Queued  int           // tasks waiting in its runnext, ring and fork-join deque
}

// WithStallDetector reports, through report, every task that runs on a
// worker for longer than threshold while other tasks wait behind it on the
// same worker (they stay stealable, but a stall usually means a task that
// blocks without Worker.Block, or a tight loop). report is called at most
// once per stalled task, from the detector's goroutine; nil means a
// log/slog warning.
//
// The detector is the pool's sysmon: one goroutine that wakes every
// threshold/2 and compares each worker's count of started tasks with the
// previous look, so tasks pay no timer and no clock read. Without this
// option there is no detector goroutine at all. While enabled it wakes
// 2/threshold times a second even when the pool is idle.
func WithStallDetector(threshold time.Duration, report func(Stall)) Option {
	return func(c *config) {
		c.stallAfter = threshold
		c.stallReport = report
	}
}

func defaultStallReport(s Stall) {
	slog.Warn("steal: task running long while tasks wait behind it",
		"worker", s.Worker, "running", s.Running, "queued", s.Queued)
}

// stallDetector samples the workers' task counters.
type stallDetector struct {
	p        *Pool
	after    time.Duration
	report   func(Stall)
	seen     []uint64    // started-task count at the last look
	since    []time.Time // when that count was first seen
	reported []bool      // this count has been reported already
	quit     chan struct{}
	done     chan struct{}
	once     sync.Once
}

func startStallDetector(p *Pool, after time.Duration, report func(Stall)) *stallDetector {
	if report == nil {
		report = defaultStallReport
	}
	n := len(p.workers)
	d := &stallDetector{p: p, after: after, report: report,
		seen: make([]uint64, n), since: make([]time.Time, n), reported: make([]bool, n),
		quit: make(chan struct{}), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *stallDetector) run() {
	defer close(d.done)
	tick := time.NewTicker(max(d.after/2, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case now := <-tick.C:
			d.look(now)
		case <-d.quit:
			return
		}
	}
}

// look compares every worker with the previous look and reports the ones
// stuck on one task past the threshold with work queued behind them.
func (d *stallDetector) look(now time.Time) {
	for i, w := range d.p.workers {
		started := w.running.Load()
		if started != d.seen[i] || d.since[i].IsZero() {
			d.seen[i], d.since[i], d.reported[i] = started, now, false
			continue
		}
		queued := w.ring.Len() + w.jobs.Len()
		if w.runnext.Load() != nil {
			queued++
		}
		if running := now.Sub(d.since[i]); running >= d.after && queued > 0 && !d.reported[i] {
			d.reported[i] = true
			d.report(Stall{Worker: i, Running: running, Queued: queued})
		}
	}
}

// stopOnce ends the detector and waits for it; any number of calls is fine.
func (d *stallDetector) stopOnce() {
	d.once.Do(func() { close(d.quit) })
	<-d.done
}

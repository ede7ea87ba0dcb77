package schedcheck

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Monitor samples the scheduler in a goroutine of its own and diagnoses
// each new sample against the ones before it. Start one with Start; Stop
// ends it and returns its Report. Its methods are safe to call from any
// goroutine. A Monitor runs once: after its context ends or Stop, it takes
// no more samples, and watching again takes a new Start.
type Monitor struct {
	cancel context.CancelFunc
	done   chan struct{}
	report Report // written by run before done is closed
}

// Report is what a Monitor saw, from its first sample to its last.
type Report struct {
	Samples    int       // snapshots taken
	Start, End time.Time // the first and last snapshot's times
	// Findings has each finding the first time its name was reported, in
	// the order they came; a symptom that lasts is not repeated.
	Findings []Finding
	Last     Snapshot // the last snapshot
}

// String returns the report for people: one line when nothing was seen,
// else a line per finding.
func (r Report) String() string {
	if len(r.Findings) == 0 {
		return fmt.Sprintf("schedcheck: no pitfall symptoms seen (%d samples)", r.Samples)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "schedcheck: %d symptom(s) in %d samples over %v", len(r.Findings), r.Samples, round(r.End.Sub(r.Start)))
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n  %s", f)
	}
	return b.String()
}

// Start starts a Monitor that takes a snapshot at once, then every interval
// (WithInterval, default 1 s), and diagnoses each against the window before
// it (WithWindow). It runs until ctx is done or Stop is called, and then
// takes one last snapshot, so that the time since the last tick counts. It
// never fails: a metric the runtime lacks or a cgroup file it cannot read
// only silences the rules that need it. The Monitor counts locked
// goroutines (LockedGoroutines, which stops the world) only when the
// thread count has stood above what the Ps and system calls explain for a
// whole window, then again once it has grown or, while it stays
// unexplained, every 10 windows (50 s at the defaults), and never with
// more than 2000 goroutines. The same goroutine dump counts the
// goroutines in cgo calls, taken likewise when at least WithCgoInFlight
// goroutines have stayed outside Go for a window without a cgo call
// starting.
func Start(ctx context.Context, opts ...Option) *Monitor {
	c := newConfig(opts)
	ctx, cancel := context.WithCancel(ctx)
	m := &Monitor{cancel: cancel, done: make(chan struct{})}
	go m.run(ctx, c)
	return m
}

// Stop ends the Monitor if its context has not already, waits for its
// goroutine (and any WithOnFinding call in progress) to return, and
// returns the Report. Calling it again returns the same Report. On a
// Monitor that Start did not make, which never ran (a zero Monitor, or a
// nil *Monitor), it returns an empty Report.
func (m *Monitor) Stop() Report {
	if m == nil || m.done == nil {
		return Report{}
	}
	m.cancel()
	<-m.done
	return m.report
}

func (m *Monitor) run(ctx context.Context, c config) {
	defer close(m.done)
	// The window grows as samples come: WithWindow takes any n >= 2, and
	// making room for a huge n up front would fail or exhaust memory.
	hist := make([]Snapshot, 0, min(c.window, 16))
	seen := map[string]bool{}
	// At the last goroutine dump: the thread count, the goroutines outside
	// Go, and what the dump counted; and the samples taken since.
	scannedThreads, scannedNotInGo := int64(-1), int64(-1)
	locked, inCgo := -1, -1
	sinceScan := 0
	quota := rootQuota
	if c.fsys != rootFS {
		quota = &quotaCache{fsys: c.fsys}
	}
	take := func() {
		s := sample(quota)
		if len(hist) == c.window {
			copy(hist, hist[1:])
			hist = hist[:len(hist)-1]
		}
		hist = append(hist, s)
		sinceScan++
		full := len(hist) == c.window
		wantLocked := full && threadsUnexplained(hist, c)
		wantCgo := full && cgoUncounted(hist, c)
		// Dump again when threads or goroutines outside Go were added, or
		// after rescanWindows windows: goroutines that lock threads later
		// may take idle threads that an earlier burst of system calls
		// left, and the thread count does not move.
		again := sinceScan/c.window >= rescanWindows ||
			wantLocked && s.Threads > scannedThreads || wantCgo && s.NotInGo > scannedNotInGo
		if (wantLocked || wantCgo) && again && s.Goroutines <= maxScanGoroutines {
			locked, inCgo = countDump(goroutineDump())
			scannedThreads, scannedNotInGo, sinceScan = s.Threads, s.NotInGo, 0
		}
		if wantLocked {
			hist[len(hist)-1].Locked = locked
		}
		if wantCgo {
			hist[len(hist)-1].InCgo = inCgo
		}
		r := &m.report
		if r.Samples == 0 {
			r.Start = s.Time
		}
		r.Samples++
		r.End, r.Last = s.Time, hist[len(hist)-1]
		for _, f := range diagnose(hist, c) {
			if !seen[f.Name] {
				seen[f.Name] = true
				r.Findings = append(r.Findings, f)
				if c.onFinding != nil {
					c.onFinding(f)
				}
			}
		}
	}
	take()
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			take()
			return
		case <-t.C:
			take()
		}
	}
}

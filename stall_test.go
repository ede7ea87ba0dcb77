package steal

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStallDetectorFiresForLongTaskWithWorkBehindIt(t *testing.T) {
	var mu sync.Mutex
	var got []Stall
	p := New(WithWorkers(1), WithStallDetector(20*time.Millisecond, func(s Stall) {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
	}))
	reported := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) > 0
	}
	p.Run(func(w *Worker) {
		w.Spawn(func(*Worker) {}) // waits behind the stuck task: one worker, nobody steals
		// Stay stuck, taking no step, until the report has come and for at
		// least 150 ms (several more looks, which must not report again):
		// a loaded machine can delay the detector's looks past a fixed time.
		start := time.Now()
		waitUntil(func() bool { return reported() && time.Since(start) >= 150*time.Millisecond })
	})
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("got %d stall reports, want exactly 1 (once per stalled task): %+v", len(got), got)
	}
	if s := got[0]; s.Worker != 0 || s.Queued != 1 || s.Running < 20*time.Millisecond {
		t.Fatalf("report %+v, want worker 0, 1 queued, running >= 20ms", s)
	}
}

func TestStallDetectorSilentForShortTasks(t *testing.T) {
	const threshold = 50 * time.Millisecond
	rec := newStallRecorder()
	// Every task marks its start and end: a report is wrong only if the
	// worker's own marks show no gap as long as the reported stretch (on
	// a loaded machine the operating system may hold a worker's thread
	// off for longer than the threshold, and the detector rightly reports
	// that).
	clock := newSelfClock(2, threshold/2)
	p := New(WithWorkers(2), WithStallDetector(threshold, rec.report))
	deadline := time.Now().Add(300 * time.Millisecond)
	p.Run(func(w *Worker) {
		// Many short tasks, always some queued, for longer than the threshold.
		var chain func(w *Worker)
		chain = func(w *Worker) {
			clock.mark(w, 1)
			if time.Now().Before(deadline) {
				w.Spawn(chain)
				w.Spawn(func(w *Worker) {
					clock.mark(w, 1)
					time.Sleep(100 * time.Microsecond)
					clock.mark(w, 1)
				})
			}
			clock.mark(w, 1)
		}
		chain(w)
	})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	reports := rec.all()
	if bad := clock.unexplained(reports, time.Millisecond); len(bad) != 0 {
		t.Fatalf("short tasks reported as %d stalls: %+v", len(bad), bad)
	} else if len(reports) > 0 {
		t.Logf("%d reports, each during a gap in the tasks' own progress (machine overloaded)", len(reports))
	}
}

func TestStallDetectorSilentForLongTaskWithNothingQueued(t *testing.T) {
	reports := make(chan Stall, 10)
	p := New(WithWorkers(1), WithStallDetector(20*time.Millisecond, func(s Stall) { reports <- s }))
	p.Run(func(*Worker) { time.Sleep(100 * time.Millisecond) })
	p.Close()
	if len(reports) != 0 {
		t.Fatalf("a long task with nothing behind it was reported: %+v", <-reports)
	}
}

// stallRecorder collects reports, with the time each was made, without
// ever blocking the detector.
type stallRecorder struct {
	mu  sync.Mutex
	got []stallAt
	ch  chan Stall // also receives each report, if it has room
}

type stallAt struct {
	Stall
	at time.Time
}

func (r stallAt) String() string {
	return fmt.Sprintf("%+v at %s", r.Stall, r.at.Format("15:04:05.000"))
}

func newStallRecorder() *stallRecorder { return &stallRecorder{ch: make(chan Stall, 64)} }

func (r *stallRecorder) report(s Stall) {
	r.mu.Lock()
	r.got = append(r.got, stallAt{s, time.Now()})
	r.mu.Unlock()
	select {
	case r.ch <- s:
	default:
	}
}

func (r *stallRecorder) all() []stallAt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]stallAt(nil), r.got...)
}

// selfClock is a task's own record of its progress, for telling a detector
// that is wrong from a machine that is overloaded: on a busy 2-core machine
// the operating system may leave a worker's thread unrun for longer than a
// 20 ms threshold, and the detector then rightly reports that worker. A
// task calls mark at its steps; the clock keeps every gap between marks of
// at least min.
type selfClock struct {
	min     time.Duration
	workers []selfClockWorker
}

type selfClockWorker struct {
	calls uint32
	last  time.Time
	gaps  []gap
	_     [64]byte // workers mark their own entries: keep them apart
}

type gap struct{ from, to time.Time }

func newSelfClock(workers int, min time.Duration) *selfClock {
	return &selfClock{min: min, workers: make([]selfClockWorker, workers)}
}

// mark records progress of w's task; it reads the clock on every
// (every)th call, to keep cheap marks cheap. Only w's goroutine calls it.
func (c *selfClock) mark(w *Worker, every uint32) {
	e := &c.workers[w.ID()]
	if e.calls++; e.calls%every != 0 {
		return
	}
	now := time.Now()
	if !e.last.IsZero() && now.Sub(e.last) >= c.min {
		e.gaps = append(e.gaps, gap{e.last, now})
	}
	e.last = now
}

// unexplained returns the reports that no gap in the task's own progress
// accounts for: a gap on the reported worker, at least as long as the
// reported time less tol, that overlaps the reported stretch. Call it only
// after the pool is closed.
func (c *selfClock) unexplained(reports []stallAt, tol time.Duration) []stallAt {
	var bad []stallAt
	for _, r := range reports {
		explained := false
		for _, g := range c.workers[r.Worker].gaps {
			if g.to.Sub(g.from) >= r.Running-tol && g.from.Before(r.at) && g.to.After(r.at.Add(-r.Running-tol)) {
				explained = true
			}
		}
		if !explained {
			bad = append(bad, r)
		}
	}
	return bad
}

// TestStallDetectorReportsBlockedWorkersWhileInjectQueueWaits: both workers
// block in plain tasks (no Worker.Block) while outside submissions wait in
// the inject queue. Neither worker has anything queued of its own, yet the
// pool is stalled: both must be reported, once each.
func TestStallDetectorReportsBlockedWorkersWhileInjectQueueWaits(t *testing.T) {
	const threshold = 20 * time.Millisecond
	rec := newStallRecorder()
	p := New(WithWorkers(2), WithStallDetector(threshold, rec.report))
	release := make(chan struct{})
	started := make(chan int, 2)
	for range 2 {
		p.Submit(context.Background(), func(w *Worker) { started <- w.ID(); <-release })
	}
	for range 2 {
		waitValue(t, started, "the start of the two blocking tasks")
	}
	var ran atomic.Int32
	const waiting = 3
	for range waiting {
		p.Go(func() { ran.Add(1) })
	}
	seen := map[int]Stall{}
	for len(seen) < 2 {
		s, ok := await(rec.ch)
		if !ok {
			close(release)
			p.Close()
			t.Fatalf("after %v, reports for %d of 2 blocked workers: %+v", hang, len(seen), rec.all())
		}
		seen[s.Worker] = s
	}
	close(release)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != waiting {
		t.Fatalf("%d of the %d waiting tasks ran", ran.Load(), waiting)
	}
	for w, s := range seen {
		if s.Running < threshold || s.Queued != waiting || s.InjectQueued != waiting || s.OwnQueued != 0 {
			t.Errorf("worker %d: report %+v, want running >= %v and %d queued, all in the inject queue",
				w, s, threshold, waiting)
		}
	}
	if got := rec.all(); len(got) != 2 {
		t.Errorf("%d reports, want one per blocked task: %+v", len(got), got)
	}
}

func fibJoinMarked(w *Worker, n int, c *selfClock) int {
	c.mark(w, 64)
	if n < 2 {
		return n
	}
	var a, b int
	Join(w, func(w *Worker) { a = fibJoinMarked(w, n-1, c) }, func(w *Worker) { b = fibJoinMarked(w, n-2, c) })
	return a + b
}

// TestStallDetectorQuietForForkJoinProgress: a root task that runs for far
// longer than the threshold while its own fork-join halves wait on its
// deque is making progress, on one worker and on two. Join with closures
// on every call (no cutoff) is the worst case: most of its calls run
// inline and touch no queue.
func TestStallDetectorQuietForForkJoinProgress(t *testing.T) {
	quietWhileFib(t, "fork-join", fibJoinMarked)
}

// quietWhileFib runs fib(31) with fib, which marks the clock as it
// recurses, on one worker and on two, and fails on a stall report that
// no gap in the task's own progress explains.
func quietWhileFib(t *testing.T, what string, fib func(w *Worker, n int, c *selfClock) int) {
	t.Helper()
	const threshold = 20 * time.Millisecond
	for _, workers := range []int{1, 2} {
		rec := newStallRecorder()
		clock := newSelfClock(workers, threshold/2)
		p := New(WithWorkers(workers), WithStallDetector(threshold, rec.report))
		var got int
		if err := p.Run(func(w *Worker) { got = fib(w, 31, clock) }); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if got != 1346269 {
			t.Fatalf("fib(31) = %d", got)
		}
		reports := rec.all()
		if bad := clock.unexplained(reports, time.Millisecond); len(bad) != 0 {
			t.Errorf("workers=%d: %s fib(31) reported as %d stalls while it made progress: %+v",
				workers, what, len(bad), bad)
		} else if len(reports) > 0 {
			t.Logf("workers=%d: %d reports, each during a gap in the task's own progress (machine overloaded)",
				workers, len(reports))
		}
	}
}

// TestStallDetectorQuietForSlowForBody: a For loop whose every iteration
// takes 100 µs runs far longer than the threshold while a spawned task
// waits behind it on the only worker; each iteration is progress.
func TestStallDetectorQuietForSlowForBody(t *testing.T) {
	const threshold = 20 * time.Millisecond
	rec := newStallRecorder()
	clock := newSelfClock(1, threshold/2)
	p := New(WithWorkers(1), WithStallDetector(threshold, rec.report))
	var ran atomic.Bool
	p.Run(func(w *Worker) {
		w.Spawn(func(*Worker) { ran.Store(true) }) // waits behind the loop
		For(w, 0, 1500, func(w *Worker, _ int) {
			clock.mark(w, 1)
			for start := time.Now(); time.Since(start) < 100*time.Microsecond; {
			}
		})
	})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if !ran.Load() {
		t.Fatal("the spawned task did not run")
	}
	if bad := clock.unexplained(rec.all(), time.Millisecond); len(bad) != 0 {
		t.Errorf("a For loop making progress reported as %d stalls: %+v", len(bad), bad)
	}
}

// TestStallDetectorReportsOwnQueueNotBusyNeighbour: one worker blocks in a
// plain task with two tasks of its own queued behind it, while the other
// runs fork-join code. Only the blocked one is stalled.
//
// The order is fixed so that neither worker can take the other's work. The
// fork-join task starts first and takes steps that offer nothing (For over
// one index) until the blocking task has spawned its two: until then a
// Join's offer would let the idle worker steal a half, and an idle worker
// would steal the two tasks (both happened on a loaded machine, when the
// two tasks were submitted at once). Only the reports made before the
// blocked task is released are the scenario's: after it, both workers run
// fork-join code, and a report then is the detector's right answer to a
// thread the operating system held off.
func TestStallDetectorReportsOwnQueueNotBusyNeighbour(t *testing.T) {
	const threshold = 20 * time.Millisecond
	rec := newStallRecorder()
	clock := newSelfClock(2, threshold/2)
	p := New(WithWorkers(2), WithStallDetector(threshold, rec.report))
	release := make(chan struct{})
	blocked, busy := make(chan int, 1), make(chan int, 1)
	var spawned, stop atomic.Bool
	p.Submit(context.Background(), func(w *Worker) {
		busy <- w.ID()
		deadline := time.Now().Add(10 * time.Second)
		for !spawned.Load() && time.Now().Before(deadline) {
			For(w, 0, 1, func(*Worker, int) {}) // a step, nothing to steal
			clock.mark(w, 1)
			time.Sleep(100 * time.Microsecond)
		}
		for !stop.Load() && time.Now().Before(deadline) {
			fibJoinMarked(w, 22, clock)
		}
		clock.mark(w, 1) // closes a gap that the last calls left open
	})
	neighbour := waitValue(t, busy, "the fork-join task's start")
	// The neighbour neither steals nor helps: only the idle worker can
	// take this task.
	p.Submit(context.Background(), func(w *Worker) {
		w.Spawn(func(*Worker) {})
		w.Spawn(func(*Worker) {})
		spawned.Store(true)
		blocked <- w.ID()
		<-release
	})
	stuck := waitValue(t, blocked, "the blocking task's start")
	if !waitUntil(func() bool {
		for _, r := range rec.all() {
			if r.Worker == stuck {
				return true
			}
		}
		return false
	}) {
		t.Errorf("the blocked worker %d was not reported within %v", stuck, hang)
	}
	// Keep the neighbour going a few more thresholds to catch a false
	// report on it.
	time.Sleep(5 * threshold)
	reports := rec.all() // those made while the task was blocked
	stop.Store(true)
	close(release)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if stuck == neighbour {
		t.Fatalf("both tasks ran on worker %d", stuck)
	}
	var mine, others []stallAt
	for _, r := range reports {
		if r.Worker == stuck {
			mine = append(mine, r)
		} else {
			others = append(others, r)
		}
	}
	if len(mine) != 1 || mine[0].Running < threshold || mine[0].OwnQueued != 2 || mine[0].Queued < 2 {
		t.Errorf("reports for the blocked worker %d: %+v, want one, running >= %v, its own 2 tasks queued",
			stuck, mine, threshold)
	}
	if bad := clock.unexplained(others, time.Millisecond); len(bad) != 0 {
		t.Errorf("the busy fork-join worker %d reported as stalled: %+v", neighbour, bad)
	}
}

// A spare worker (Worker.Block) parks on the idle list like any worker;
// the stall detector, which watches the pool's own workers, indexed its
// table by the spare's id and the detector's goroutine crashed the
// process ("index out of range [1] with length 1"), every run.
func TestStallDetectorWithParkedSpare(t *testing.T) {
	p := New(WithWorkers(1), WithStallDetector(time.Millisecond, func(Stall) {}))
	defer p.Close()
	p.Run(func(w *Worker) {
		w.Block(func() { time.Sleep(30 * time.Millisecond) }) // the spare finds nothing and parks
	})
}

// A stall report that closes the pool (a program that gives up on a stuck
// pool) must not wait for the report itself to return.
func TestStallReportMayClosePool(t *testing.T) {
	release := make(chan struct{})
	closed := make(chan error, 1)
	var p *Pool
	report := func(Stall) {
		select {
		case <-release:
			return // reported again after progress: already closing
		default:
		}
		close(release)
		closed <- p.Close()
	}
	p = New(WithWorkers(1), WithStallDetector(5*time.Millisecond, report))
	p.Go(func() { <-release })
	p.Go(func() {}) // waits behind the stuck task, so the stall is reported
	waitNil(t, closed, "Close called from the stall report")
}

// fibJoin2Marked is fibJoinMarked with Join2: the shape its doc shows, a
// function with no result on two halves.
func fibJoin2Marked(w *Worker, n int, c *selfClock, sum *atomic.Int64) {
	c.mark(w, 64)
	if n < 2 {
		sum.Add(int64(n))
		return
	}
	Join2(w, func(w *Worker, k int) { fibJoin2Marked(w, k, c, sum) }, n-1, n-2)
}

// TestStallDetectorQuietForJoin2Progress: as for Join, a root task that
// recurses with Join2 far longer than the threshold, its halves waiting
// on its deque, is making progress: Join2 is a step, as Join and Fork2
// are. It was not, and its recursion on one worker was reported stalled.
func TestStallDetectorQuietForJoin2Progress(t *testing.T) {
	quietWhileFib(t, "Join2", func(w *Worker, n int, c *selfClock) int {
		var sum atomic.Int64
		fibJoin2Marked(w, n, c, &sum)
		return int(sum.Load())
	})
}

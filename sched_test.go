package steal

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/steal/internal/cputime"
)

// TestRunnextPairFairness: two tasks that keep re-spawning each other (each
// lands in runnext and would run next forever) cannot stop the other queued
// tasks from running, neither those queued behind them in the ring nor those
// submitted from outside. With one worker nothing can steal them: only the
// runnext streak limit and the 61-tick inject check let them run.
func TestRunnextPairFairness(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			defer p.Close()
			const local, outside = 200, 200
			others := newCountdown(local + outside)
			var stop atomic.Bool
			var bounces atomic.Int64
			var ping, pong func(*Worker)
			ping = func(w *Worker) {
				if bounces.Add(1); !stop.Load() {
					w.Spawn(pong)
				}
			}
			pong = func(w *Worker) {
				if bounces.Add(1); !stop.Load() {
					w.Spawn(ping)
				}
			}
			started := make(chan struct{})
			p.Go(func() {}) // warm up
			if err := p.Submit(context.Background(), func(w *Worker) {
				for i := 0; i < local; i++ {
					w.Spawn(func(*Worker) { others.dec() })
				}
				w.Spawn(ping) // runnext; the ring holds the others
				close(started)
			}); err != nil {
				t.Fatal(err)
			}
			<-started
			for i := 0; i < outside; i++ {
				if err := p.Go(others.dec); err != nil {
					t.Fatal(err)
				}
			}
			if _, ok := await(others.done); !ok {
				t.Errorf("the ping-pong pair starved the queue: %d of %d others ran after %d bounces",
					local+outside-int(others.left.Load()), local+outside, bounces.Load())
			}
			stop.Store(true)
		})
	}
}

// TestBlockedWorkerDoesNotHoldQueue: a task spawns many tasks onto its own
// worker (the last into runnext, 128 of them spilling to the inject queue)
// and then blocks on a channel that only closes once every one of them has
// run. Other workers must steal all of them, runnext included, while it is
// blocked; none may run on the blocked worker.
func TestBlockedWorkerDoesNotHoldQueue(t *testing.T) {
	for _, workers := range []int{2, 3, 8} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			defer p.Close()
			const n = 300
			all := newCountdown(n)
			ranOn := make([]atomic.Int64, n)
			var blockedID atomic.Int64
			finished := make(chan string, 1)
			err := p.Submit(context.Background(), func(w *Worker) {
				blockedID.Store(int64(w.ID()))
				for i := 0; i < n; i++ {
					w.Spawn(func(w *Worker) {
						ranOn[i].Store(int64(w.ID()) + 1)
						time.Sleep(50 * time.Microsecond)
						all.dec()
					})
				}
				if _, ok := await(all.done); !ok {
					finished <- fmt.Sprintf("%d of %d spawned tasks still waiting behind the blocked worker: %s",
						all.left.Load(), n, p.SchedTrace(0))
					return
				}
				finished <- ""
			})
			if err != nil {
				t.Fatal(err)
			}
			if msg := <-finished; msg != "" {
				t.Fatal(msg)
			}
			for i := range ranOn {
				if got := ranOn[i].Load() - 1; got == blockedID.Load() {
					t.Errorf("task %d ran on worker %d, which was blocked", i, got)
				}
			}
			if p.Stats().Workers[blockedID.Load()].Runnext {
				t.Errorf("blocked worker's runnext still full")
			}
		})
	}
}

// everyWorkerRan reports whether each counter of perWorker is above zero.
func everyWorkerRan(perWorker []atomic.Int64) bool {
	for i := range perWorker {
		if perWorker[i].Load() == 0 {
			return false
		}
	}
	return true
}

// firstOnEachWaits counts a task run on worker id in perWorker; the first
// task on each worker waits (at most hang) until every worker has run one.
// Tests that want every worker to take part use it so that the tasks
// cannot all be over before a loaded machine (or a Go scheduler with fewer
// processors than workers) lets the last worker run: the wait ends only
// if every worker gets a task while the others hold theirs.
func firstOnEachWaits(perWorker []atomic.Int64, id int) {
	if perWorker[id].Add(1) == 1 {
		waitUntil(func() bool { return everyWorkerRan(perWorker) })
	}
}

// TestStealingSpreadsWork: tasks all spawned from one task on one worker
// are run by every worker, when they are long enough (each sleeps, so the
// test does not depend on the number of cores, and the first on each
// worker waits for the other workers: see firstOnEachWaits).
func TestStealingSpreadsWork(t *testing.T) {
	for _, workers := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			const n = 200 // fits the 256-slot ring: other workers can only steal
			perWorker := make([]atomic.Int64, workers)
			var root atomic.Int64
			if err := p.Submit(context.Background(), func(w *Worker) {
				root.Store(int64(w.ID()))
				for i := 0; i < n; i++ {
					w.Spawn(func(w *Worker) {
						firstOnEachWaits(perWorker, w.ID())
						time.Sleep(200 * time.Microsecond)
					})
				}
			}); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			total := int64(0)
			for i := range perWorker {
				total += perWorker[i].Load()
				if perWorker[i].Load() == 0 {
					t.Errorf("worker %d ran none of the %d tasks spawned on worker %d", i, n, root.Load())
				}
			}
			if total != n {
				t.Errorf("%d tasks ran, want %d", total, n)
			}
			s := p.Stats()
			if s.Total.StolenIn == 0 || s.Total.StolenIn != s.Total.StolenOut {
				t.Errorf("StolenIn %d, StolenOut %d", s.Total.StolenIn, s.Total.StolenOut)
			}
		})
	}
}

// sumTo is the imbalanced demo's task body: the sum of n numbers, computed
// (no memory traffic, so the race detector does not slow it down).
func sumTo(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i ^ (s >> 3)
	}
	return s
}

var sumSink atomic.Int64

// TestImbalancedUsesAllWorkers is the imbalanced demo as a behaviour test:
// 1000 CPU-bound tasks all spawned from one task on one worker; every worker
// runs some of them. BenchmarkImbalanced measures its efficiency. The
// first task on each worker waits for the others (firstOnEachWaits): with
// more workers than processors, a worker that is not running gets one only
// when the Go scheduler preempts a running one (every 10 ms), and with
// -short, or on a fast machine, the work was over before the fourth worker
// of four got its turn (every run with -short -cpu 1).
func TestImbalancedUsesAllWorkers(t *testing.T) {
	size := 100_000
	if testing.Short() {
		size = 20_000
	}
	for _, workers := range []int{max(2, runtime.GOMAXPROCS(0)), 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			perWorker := make([]atomic.Int64, workers)
			if err := p.Submit(context.Background(), func(w *Worker) {
				for i := 0; i < 1000; i++ {
					w.Spawn(func(w *Worker) {
						firstOnEachWaits(perWorker, w.ID())
						sumSink.Add(int64(sumTo(size)))
					})
				}
			}); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			total := int64(0)
			for i := range perWorker {
				total += perWorker[i].Load()
				if perWorker[i].Load() == 0 {
					t.Errorf("worker %d ran none of the imbalanced tasks", i)
				}
			}
			if total != 1000 {
				t.Errorf("%d tasks ran, want 1000", total)
			}
			if s := p.Stats(); s.Total.Ran != 1001 {
				t.Errorf("Stats.Total.Ran = %d, want 1001", s.Total.Ran)
			}
		})
	}
}

// TestIdleUsesNoCPU: once the work is done and the workers have parked, the
// pool runs nothing: the process's CPU time over an idle second stays flat
// (a spinning or polling worker would burn most of that second).
func TestIdleUsesNoCPU(t *testing.T) {
	pools := []*Pool{New(WithWorkers(runtime.GOMAXPROCS(0))), New(WithWorkers(8))}
	for _, p := range pools {
		defer p.Close()
		all := newCountdown(10_000)
		p.Submit(context.Background(), func(w *Worker) {
			for i := 0; i < 10_000; i++ {
				w.Spawn(func(*Worker) { all.dec() })
			}
		})
		waitClosed(t, all.done, "work")
	}
	for _, p := range pools {
		waitAllParked(t, p)
	}
	// The process's CPU time also counts the runtime's own work (a
	// collection, the race detector) and, on a loaded machine, accounting
	// noise; a pool that spins or polls burns CPU in every second, so the
	// test takes the best of three idle seconds.
	var used, wall time.Duration
	for try := 0; try < 3; try++ {
		runtime.GC()
		before, start := cputime.Process(t), time.Now()
		time.Sleep(time.Second)
		used, wall = cputime.Process(t)-before, time.Since(start)
		t.Logf("CPU used over %v idle: %v", wall.Round(time.Millisecond), used)
		if used <= 50*time.Millisecond {
			break
		}
	}
	if used > 50*time.Millisecond {
		t.Errorf("idle pools used %v of CPU in %v, the best of three idle seconds (want flat, < 50ms)", used, wall)
	}
	for _, p := range pools {
		if s := p.Stats(); s.Idle != p.Workers() || s.Spinning != 0 {
			t.Errorf("after an idle second: %s", p.SchedTrace(0))
		}
	}
}

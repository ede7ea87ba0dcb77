package steal

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// A task waiting inside the pool helps by running other tasks on its own
// goroutine, above its frames. A task submitted to the pool (Submit, Go,
// a Pool.Group child, PoolSpawn) may wait for anything, a Pool.Group filled
// by others included, so it must never be run there: it could be waiting,
// through that group, for the very task beneath it, which cannot go on
// before it returns. A waiting task lends such a task to a spare worker
// instead.

// awaitLend fails the test, with the pool's trace, if done is not closed: a
// hang is the failure these tests look for, and these programs finish in
// milliseconds when nothing hangs.
func awaitLend(t *testing.T, p *Pool, done <-chan struct{}, what string) {
	t.Helper()
	if _, ok := await(done); !ok {
		t.Fatalf("%s: still waiting after %v (a waiting task ran a task that waits for it)\n%s",
			what, hang, p.SchedTrace(0))
	}
}

// The shape that hung: a Pool.Group child waits for a future it made; the
// task queued before that future waits for the group. On one worker the
// child, helping, took that task first and ran it above itself.
func TestWaitingChildDoesNotRunGroupWaiter(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		g := p.Group(nil)
		g.Go(func(w *Worker) error {
			f, err := PoolSpawn(nil, p, func(*Worker) int { return 1 })
			if err != nil {
				return err
			}
			_, err = f.Wait(w)
			return err
		})
		done := make(chan struct{})
		var waitErr error
		if err := p.Submit(nil, func(*Worker) { waitErr = g.Wait(); close(done) }); err != nil {
			t.Fatal(err)
		}
		awaitLend(t, p, done, "a submitted task's Wait for a Pool.Group")
		if waitErr != nil {
			t.Errorf("%d workers: Wait = %v", workers, waitErr)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The same with futures only: a submitted task waits for a future that
// another submitted task will complete once its own wait is over.
func TestWaitingTaskDoesNotRunItsWaiter(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	release := make(chan struct{})
	first, err := PoolSpawn(nil, p, func(w *Worker) int {
		<-release // queued behind: the waiter below, then inner
		inner, err := PoolSpawn(nil, p, func(*Worker) int { return 2 })
		if err != nil {
			panic(err)
		}
		v, _ := inner.Wait(w)
		return v
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var got int
	if err := p.Submit(nil, func(w *Worker) { got, _ = first.Wait(w); close(done) }); err != nil {
		t.Fatal(err)
	}
	close(release)
	awaitLend(t, p, done, "a Wait for a future made by another submitted task")
	if got != 2 {
		t.Errorf("got %d, want 2", got)
	}
}

// The rule itself: while a task waits, no submitted task runs on its
// goroutine. Each submitted task notes its goroutine; the waiting tasks
// note theirs while they wait for a future queued behind other submitted
// tasks, and none may match.
func TestSubmittedTasksNeverRunAboveAWaitingTask(t *testing.T) {
	p := New(WithWorkers(2))
	var mu sync.Mutex
	waiting := map[int64]int{} // goroutine -> tasks waiting on it
	nested := 0
	var wg sync.WaitGroup
	submit := func(fn func(w *Worker)) {
		wg.Add(1)
		if err := p.Submit(nil, func(w *Worker) { defer wg.Done(); fn(w) }); err != nil {
			t.Fatal(err)
		}
	}
	leaf := func(*Worker) {
		mu.Lock()
		if waiting[goid()] > 0 {
			nested++
		}
		mu.Unlock()
	}
	for range 200 {
		submit(func(w *Worker) {
			leaf(w)
			id := goid()
			mu.Lock()
			waiting[id]++
			mu.Unlock()
			f, err := PoolSpawn(nil, p, func(*Worker) int { return 1 }) // queued behind others
			if err != nil {
				panic(err)
			}
			f.Wait(w)
			mu.Lock()
			waiting[id]--
			mu.Unlock()
		})
		submit(leaf)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	awaitLend(t, p, done, "400 submitted tasks")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if nested != 0 {
		t.Errorf("%d submitted tasks ran on the goroutine of a task waiting in Future.Wait", nested)
	}
}

// A task that lent a submitted task to a spare waits, off the idle list,
// while the spare stands in for its worker, as a task in Worker.Block
// does: the stall detector must not report that worker, even while other
// tasks wait to run. Here the waiting task's future sits in the inject
// queue behind two submitted tasks, one lent, which run on the spare,
// taking steps, until the end; the pool's other worker runs a task that
// takes one step at each of the detector's looks, so that the test knows
// how many looks have passed.
func TestStallDetectorQuietWhileASpareRunsALentTask(t *testing.T) {
	const threshold = 20 * time.Millisecond
	const looks = 12 // some 6 thresholds
	rec := newStallRecorder()
	p := New(WithWorkers(2), WithStallDetector(threshold, rec.report))
	defer p.Close()
	release := make(chan struct{})
	deadline := time.Now().Add(hang)
	clockIn := make(chan struct{})
	lentRuns := make(chan struct{})
	var spareRuns sync.Once
	clockDone := make(chan struct{})
	waiterID := make(chan int, 1)
	waited := make(chan struct{})

	// The clock: one step at each look of the detector.
	if err := p.Submit(nil, func(w *Worker) {
		close(clockIn)
		me := p.workers[w.ID()]
		if _, ok := await(lentRuns); !ok {
			t.Error("the lent task did not start")
			return
		}
		for range looks {
			Join(w, func(*Worker) {}, func(*Worker) {}) // a step: clears the probe
			for me.probe.Load() == 0 {                  // until the detector's next look sets it
				if time.Now().After(deadline) {
					t.Error("the stall detector stopped looking")
					return
				}
				runtime.Gosched()
			}
		}
		close(clockDone)
		<-release
	}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, clockIn, "the clock task's start")

	// The waiter, on the other worker: the task it comes upon first is
	// the one submitted before its future, which it lends.
	if err := p.Submit(nil, func(w *Worker) {
		waiterID <- w.ID()
		// Two of them: a fresh spare looks at the inject queue before its
		// runnext, so it may run the second first; either way the future
		// stays queued behind them.
		for range 2 {
			if err := p.Submit(nil, func(w *Worker) {
				spareRuns.Do(func() { close(lentRuns) })
				for {
					select {
					case <-release:
						return
					default:
					}
					Join(w, func(*Worker) {}, func(*Worker) {}) // progress: not stuck
					runtime.Gosched()
				}
			}); err != nil {
				panic(err)
			}
		}
		f, err := PoolSpawn(nil, p, func(*Worker) int { return 1 })
		if err != nil {
			panic(err)
		}
		f.Wait(w)
		close(waited)
	}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, clockDone, fmt.Sprintf("the clock's count of %d looks", looks))
	close(release)
	awaitLend(t, p, waited, "a Future.Wait that lent the task ahead of its future")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	id := <-waiterID
	for _, r := range rec.all() {
		if r.Worker == id {
			t.Errorf("worker %d, waiting while a spare ran the task it lent, reported stuck: %v", id, r)
		}
	}
}

package steal

import (
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

// lendTimeout bounds each test's wait: a hang is the failure these tests
// look for, and these programs finish in milliseconds when nothing hangs.
const lendTimeout = 20 * time.Second

// awaitLend fails the test if done is not closed within lendTimeout.
func awaitLend(t *testing.T, p *Pool, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(lendTimeout):
		t.Fatalf("%s: still waiting after %v (a waiting task ran a task that waits for it)\n%s",
			what, lendTimeout, p.SchedTrace(0))
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

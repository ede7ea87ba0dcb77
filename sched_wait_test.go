package steal

import (
	"context"
	"testing"
	"time"
)

// TestHelpingWorkerStopsSpinning: a waiting worker woken as a spinner takes
// a long task from the inject queue while helping. It must stop counting as
// spinning before it runs it; otherwise every wakep returns early and a task
// spawned elsewhere (Y, below) waits forever although a worker is parked.
func TestHelpingWorkerStopsSpinning(t *testing.T) {
	p := New(WithWorkers(3))
	waitAllParked(t, p)
	gate1, gate2 := make(chan struct{}), make(chan struct{})
	fStarted, xRunning, yRan, rootDone := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	p.Submit(context.Background(), func(w *Worker) {
		f := Spawn(w, func(w *Worker) int {
			close(fStarted)
			<-gate1
			c := make(chan struct{})
			w.Spawn(func(*Worker) { close(yRan); close(c) }) // runnext: a parked worker must take it
			await(c)
			return 1
		})
		<-fStarted // a thief runs f
		waitUntil(func() bool { return p.nidle.Load() == 1 && p.nspinning.Load() == 0 })
		f.Wait(w) // helps, finds nothing, sleeps on the idle list
		close(rootDone)
	})
	<-fStarted
	if !waitUntil(func() bool { return p.nidle.Load() == 2 }) {
		t.Fatalf("the waiting worker never slept: %s", p.SchedTrace(0))
	}
	// Wake the sleeper (the most recently idle worker) with X, which it
	// takes from the inject queue while helping, and which blocks.
	p.Submit(context.Background(), func(*Worker) { close(xRunning); <-gate2 })
	<-xRunning
	close(gate1)
	if _, ok := await(yRan); !ok {
		t.Errorf("Y never ran although a worker is parked: nspinning=%d nidle=%d", p.nspinning.Load(), p.nidle.Load())
	}
	close(gate2)
	<-rootDone
	p.Close()
}

// TestNotDoneWhileATaskSleeps: a worker asleep inside a task, waiting on a
// Join latch, is on the idle list; the pool must not be taken for done
// (p.done closed) while that task still runs, even after Close has begun.
func TestNotDoneWhileATaskSleeps(t *testing.T) {
	pools := 200
	if testing.Short() {
		pools = 40
	}
	for range pools {
		p := New(WithWorkers(2))
		started := make(chan struct{})
		early := make(chan bool, 1)
		p.Submit(context.Background(), func(w *Worker) {
			close(started)
			for range 20 {
				Join(w, func(*Worker) {}, func(*Worker) { time.Sleep(200 * time.Microsecond) })
				select {
				case <-w.c.pool.done:
					early <- true
					return
				default:
				}
			}
			early <- false
		})
		<-started
		p.Close()
		if <-early {
			t.Fatal("the pool was done while one of its tasks was still running")
		}
	}
}

// TestTasksSleepOnOneLatch: two tasks, on two workers, wait for one thing
// that a third worker runs (a future; a Pool.Group's child), and both fall
// asleep on the idle list before it finishes. Both must wake when it does,
// with nothing else submitted to wake them: Future.Wait and a Pool.Group's
// Wait may be called from any number of tasks.
func TestTasksSleepOnOneLatch(t *testing.T) {
	t.Run("Future", func(t *testing.T) {
		testTwoSleepers(t, func(p *Pool, body func()) func(*Worker) {
			f, err := PoolSpawn(context.Background(), p, func(*Worker) int { body(); return 0 })
			if err != nil {
				t.Fatal(err)
			}
			return func(w *Worker) { f.Wait(w) }
		})
	})
	t.Run("PoolGroup", func(t *testing.T) {
		testTwoSleepers(t, func(p *Pool, body func()) func(*Worker) {
			g := p.Group(context.Background())
			g.Go(func(*Worker) error { body(); return nil })
			return func(*Worker) { g.Wait() }
		})
	})
}

// testTwoSleepers starts, through start, a task that runs body, and two
// tasks that call the wait start returns, and checks both waits return.
func testTwoSleepers(t *testing.T, start func(p *Pool, body func()) func(*Worker)) {
	p := New(WithWorkers(3))
	defer p.Close()
	release, started := make(chan struct{}), make(chan struct{})
	wait := start(p, func() { close(started); <-release })
	<-started
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	woke := make(chan struct{}, 2)
	both := newCountdown(2) // each waiter holds its worker until both run
	for range 2 {
		p.Submit(context.Background(), func(w *Worker) {
			both.dec()
			waitClosed(t, both.done, "the other waiter starting")
			wait(w)
			woke <- struct{}{}
		})
	}
	// Both waiters help, find nothing, and sleep: the two workers not
	// running body are on the idle list, inside their tasks.
	if !waitUntil(func() bool { return p.nidle.Load() == 2 && p.sleepers.Load() == 2 }) {
		t.Fatalf("the waiters never both slept: idle %d, asleep in a task %d: %s",
			p.nidle.Load(), p.sleepers.Load(), p.SchedTrace(0))
	}
	close(release)
	for i := range 2 {
		if _, ok := await(woke); !ok {
			t.Errorf("waiter %d never woke after the work finished: %s", i+1, p.SchedTrace(0))
			// Occupy every worker, the lost sleeper last, so that it
			// wakes and sees the work done, and Close can finish.
			gate := make(chan struct{})
			for range p.Workers() {
				p.Go(func() { <-gate })
			}
			await(woke)
			close(gate)
			return
		}
	}
}

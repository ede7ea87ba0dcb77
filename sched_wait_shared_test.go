package steal

import (
	"context"
	"testing"
	"time"
)

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
			waitClosed(t, both.done, 10*time.Second, "the other waiter starting")
			wait(w)
			woke <- struct{}{}
		})
	}
	// Both waiters help, find nothing, and sleep: the two workers not
	// running body are on the idle list, inside their tasks.
	if !waitUntil(10*time.Second, func() bool { return p.nidle.Load() == 2 && p.sleepers.Load() == 2 }) {
		t.Fatalf("the waiters never both slept: idle %d, asleep in a task %d: %s",
			p.nidle.Load(), p.sleepers.Load(), p.SchedTrace(0))
	}
	close(release)
	for i := range 2 {
		select {
		case <-woke:
		case <-time.After(10 * time.Second):
			t.Errorf("waiter %d never woke after the work finished: %s", i+1, p.SchedTrace(0))
			// Occupy every worker, the lost sleeper last, so that it
			// wakes and sees the work done, and Close can finish.
			gate := make(chan struct{})
			for range p.Workers() {
				p.Go(func() { <-gate })
			}
			select {
			case <-woke:
			case <-time.After(10 * time.Second):
			}
			close(gate)
			return
		}
	}
}

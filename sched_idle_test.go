package steal

import (
	"context"
	"fmt"
	"testing"
)

// TestNoLostWakeup checks the wakeup protocol of the package comment
// ("Spinning and parking"): many rounds of waiting until every worker is
// parked (or, in every fourth round, not waiting at all, so that the new work
// races with workers on their way to sleep) and then queuing one task, from
// outside (Submit, Go, TrySubmit) or from inside a running task (Spawn into
// runnext while the spawner is blocked, so another worker must be woken to
// steal it), and asserting that the task runs.
func TestNoLostWakeup(t *testing.T) {
	rounds := 1000
	if testing.Short() {
		rounds = 200
	}
	for workers := 1; workers <= 8; workers++ {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			defer p.Close()
			for round := 0; round < rounds; round++ {
				if round%4 != 3 {
					waitAllParked(t, p)
				}
				done := make(chan struct{})
				signal := func(*Worker) { close(done) }
				var err error
				switch kind := round % 5; {
				case kind == 0:
					err = p.Submit(context.Background(), signal)
				case kind == 1:
					err = p.Go(func() { close(done) })
				case kind == 2:
					err = p.TrySubmit(signal)
				case kind == 3 || workers == 1:
					// Spawn from inside, the spawner returns at once.
					err = p.Submit(context.Background(), func(w *Worker) { w.Spawn(signal) })
				default:
					// Spawn from inside once every other worker is parked, then
					// block until the spawned task ran: only a worker woken by
					// the Spawn can run it, by stealing runnext.
					err = p.Submit(context.Background(), func(w *Worker) {
						waitUntil(func() bool { return p.Stats().Idle == workers-1 })
						w.Spawn(signal)
						await(done)
					})
				}
				if err != nil {
					t.Fatalf("round %d: submit: %v", round, err)
				}
				// hang is not a speed bound: a lost wakeup leaves the task
				// queued with every worker asleep, forever.
				if _, ok := await(done); !ok {
					t.Fatalf("round %d (kind %d): task not run after %v, wakeup lost: %s",
						round, round%5, hang, p.SchedTrace(0))
				}
			}
		})
	}
}

package cluster

import (
	"context"
	"testing"
	"time"
)

// withRetryWindow shortens how long the store's writes are retried, so
// that a test can outlast it.
func withRetryWindow(d time.Duration) Option { return func(c *config) { c.retry = d } }

// TestStealOutcomeUnknown: a victim's steal batch of a job held without a
// record reaches the servers, but every answer to it is lost for longer
// than the victim retries its writes through transient errors. The move
// happened: the thief runs the job from the record the batch wrote. The
// victim, which cannot tell, must not keep the job as well (its parent's
// completion would write it a second record, and it would run twice): it
// asks again with the same batch until the servers answer, and their
// answer, a duplicate, says the move was applied.
func TestStealOutcomeUnknown(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a victim's answers back for 3.5 s")
	}
	h := newHarness(t, WithLease(10*time.Second), WithRequestTimeout(time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" {
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		}
		gate(ctx, release)
		return nil, nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) },
		WithSlots(1), withRetryWindow(2*time.Second))
	h.worker("w2", func(w *Worker) { w.Handle("job", handler) }, WithSlots(2))
	h.ready("w1", "w2")
	stealChildAnswerLost(t, h, pv, w1)
	waitFor(t, 10*time.Second, "root-0 to run on w2", func() bool { return h.runCount("root-0") == 1 })
	time.Sleep(3500 * time.Millisecond) // past w1's retry window (2 s)
	pv.heal()
	waitFor(t, 20*time.Second, "w1's steal to settle", func() bool { return movingOf(w1) == 0 })
	close(release)
	checkQuiet(t, h, 2)
	for _, id := range []string{"root", "root-0"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
}

// stealChildAnswerLost submits root to w1 (one slot), waits until it runs
// and has spawned its one child, root-0, and has w2 steal root-0 with the
// answer to w1's batch lost: the batch reaches the servers through pv, and
// what the servers send back to w1 stays held until pv heals.
func stealChildAnswerLost(t *testing.T, h *harness, pv *proxy, w1 *Worker) {
	t.Helper()
	ctx := context.Background()
	if err := h.client.Submit(ctx, "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to run and spawn", func() bool {
		return h.runCount("root") == 1 && w1.Queued() == 1
	})
	pv.blackhole(true, false) // hold w1's outgoing bytes until it has popped root-0
	go h.client.Steal(ctx, "w2", "w1", 0)
	waitFor(t, 10*time.Second, "w1 to pop root-0 for the thief", func() bool { return movingOf(w1) == 1 })
	pv.loseAnswers()
}

package cluster

import (
	"context"
	"testing"
	"time"
)

// TestStealRetryAckLost: the answer to a victim's steal batch of a job
// held without a record is lost (held back past the victim's request
// timeout) while the batch itself reaches the servers, so the victim's
// commit tries again. The job's put is conditional on its anchor's record,
// which the batch does not change: were the retry applied, it would write
// the thief's record a second time, at a new revision, and the thief would
// run the job twice. The first run's child, fenced on the first revision,
// would then be refused when it completes with a child of its own pending,
// while the second run's Spawn of the same id is skipped (the id is held):
// root-0-0 would never complete. The retry must be refused instead, and
// every job run and complete once.
func TestStealRetryAckLost(t *testing.T) {
	h := newHarness(t, WithLease(3*time.Second), WithRequestTimeout(time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	releaseRoot, releaseX := make(chan struct{}), make(chan struct{})
	releaseK, releaseK0 := make(chan struct{}), make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch j.ID {
		case "root", "root-0", "root-0-0":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		}
		switch {
		case j.ID == "root":
			gate(ctx, releaseRoot)
		case j.ID == "root-0" && h.runCount("root-0") == 1:
			gate(ctx, releaseX)
		case j.ID == "root-0-0":
			gate(ctx, releaseK)
		case j.ID == "root-0-0-0":
			gate(ctx, releaseK0)
		}
		return []byte(j.Worker()), nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) }, WithSlots(1))
	w2 := h.worker("w2", func(w *Worker) { w.Handle("job", handler) }, WithSlots(3))
	h.ready("w1", "w2")
	stealChildAnswerLost(t, h, pv, w1)
	waitFor(t, 10*time.Second, "root-0, its child and grandchild to run on w2", func() bool {
		return h.runCount("root-0-0-0") == 1
	})
	time.Sleep(1500 * time.Millisecond) // past w1's request timeout: its commit retries
	pv.heal()
	waitFor(t, 10*time.Second, "w1's steal to settle", func() bool { return movingOf(w1) == 0 })

	close(releaseX)
	waitFor(t, 10*time.Second, "root-0 to complete", func() bool { return h.count("d.root-0") == 1 })
	close(releaseK) // root-0-0 completes while its child still runs
	waitFor(t, 10*time.Second, "root-0-0's completion to be written or refused", func() bool {
		return h.count("d.root-0-0") == 1 || w2.Stats().Refused == 2
	})
	close(releaseK0)
	close(releaseRoot)
	for _, id := range []string{"root", "root-0", "root-0-0", "root-0-0-0"} {
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := h.client.Wait(wctx, id)
		cancel()
		if err != nil {
			t.Fatalf("%s never completed (ran %d times): %v", id, h.runCount(id), err)
		}
	}
	for _, id := range []string{"root", "root-0", "root-0-0", "root-0-0-0"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
	checkQuiet(t, h, 4)
}

package cluster

// Review findings not fixed: each test fails on the current code and is
// skipped until the design decides. Remove the t.Skip to see it fail.

import (
	"context"
	"testing"
	"time"
)

// TestLenderCloseWithLoanOut: a lender closes (gracefully) while a job
// with a record it lent runs on a thief. Its lease goes, its records are
// taken over, and the job lent runs a second time, though no worker died.
// Before loans, a steal moved the record to the thief, and a victim's
// Close did not touch it.
func TestLenderCloseWithLoanOut(t *testing.T) {
	t.Skip("review finding, not fixed: a lender's Close re-runs its jobs on loan")
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	gLent := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch {
		case j.ID == "busy" && j.Worker() == "lender":
			<-ctx.Done()
			return nil, ctx.Err()
		case j.ID == "lent" && h.runCount("lent") == 1:
			gate(ctx, gLent)
		}
		return []byte(j.Worker()), nil
	}
	lender := h.worker("lender", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("lender")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "busy", "job", nil, To("lender")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "busy to run", func() bool { return h.runCount("busy") == 1 })
	if err := h.client.Submit(ctx, "lent", "job", nil, To("lender")); err != nil {
		t.Fatal(err)
	}
	h.worker("thief", func(w *Worker) { w.Handle("job", handler) }, WithSlots(2))
	waitFor(t, 10*time.Second, "the thief to run lent", func() bool { return h.runCount("lent") == 1 })
	lender.Close()
	h.wait("busy")
	time.Sleep(time.Second)
	close(gLent)
	h.wait("lent")
	if n := h.runCount("lent"); n != 1 {
		t.Fatalf("lent ran %d times; no worker died", n)
	}
}

// TestMemSpawnIDDedupe: SpawnID's contract says a child whose id is
// already queued or running is not queued again; with
// WithSpawnRecords(false), spawnMem queues every call.
func TestMemSpawnIDDedupe(t *testing.T) {
	t.Skip("review finding, not fixed: SpawnID does not dedupe in memory mode")
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithSpawnRecords(false))
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" {
			for range 2 {
				if err := j.SpawnID(ctx, "shared", "job", nil); err != nil {
					return nil, err
				}
			}
		}
		return nil, nil
	}
	h.worker("w1", func(w *Worker) { w.Handle("job", handler) })
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "root", "job", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("root")
	if n := h.runCount("shared"); n != 1 {
		t.Fatalf("shared ran %d times, want 1", n)
	}
}

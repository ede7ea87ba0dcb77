package cluster

import (
	"context"
	"testing"
	"time"
)

// TestFenceKeepsLentJob: a lender that fences itself (its lease lost, its
// records not taken over) reloads the records under its name, among them
// the record of a job it lent to a thief, which is running it. Queued
// again, the job runs twice at once, here and on the thief, though nobody
// took it over: the reload must leave a lent job alone, as it leaves a
// running one (TestFenceKeepsRunningJob).
func TestFenceKeepsLentJob(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	gBusy, gLent := make(chan struct{}), make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch {
		case j.ID == "busy":
			gate(ctx, gBusy)
		case j.Worker() == "thief":
			gate(ctx, gLent)
		}
		return []byte(j.Worker()), nil
	}
	lender := h.busyLender(handler)
	thief := h.lendOne(handler)
	if thief.Stats().Stolen == 0 {
		t.Fatal("lent ran on the thief without a loan")
	}
	// The lender finds its lease lost (a renewal refused), and fences
	// itself; nobody took it for dead, its records stay.
	lender.fence()
	waitFor(t, 10*time.Second, "the lender to fence itself", func() bool { return lender.Stats().Fenced >= 1 })
	for i := 0; i < 50 && lender.Queued() == 0; i++ {
		time.Sleep(10 * time.Millisecond) // the reload
	}
	close(gBusy)
	time.Sleep(time.Second)
	if n := h.runCount("lent"); n != 1 {
		t.Errorf("lent ran %d times while the thief held it, want 1", n)
	}
	close(gLent)
	h.wait("lent")
	h.wait("busy")
	checkQuiet(t, h, 2)
}

package cluster

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoanThiefCloseReturnsSubtree: a thief that closes while jobs
// spawned under a borrowed job are still queued returns the loan at once
// (as an abort), as it does for borrowed jobs not started: the lender
// must not have to wait for its audit, a lease later, to run them again.
func TestLoanThiefCloseReturnsSubtree(t *testing.T) {
	h := newHarness(t, WithLease(2*time.Second), WithSlots(1), WithSpawnRecords(false))
	var gated atomic.Bool
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		depth := strings.Count(j.ID, "-")
		switch {
		case depth < 2:
			for range 4 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			if j.Worker() == "lender" && depth == 1 {
				time.Sleep(200 * time.Millisecond)
			}
		case j.Worker() == "thief":
			gated.Store(true)
			<-ctx.Done() // until the thief closes
			return nil, ctx.Err()
		}
		return nil, nil
	}
	lender := h.worker("lender", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("lender")
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("lender")); err != nil {
		t.Fatal(err)
	}
	thief := h.worker("thief", func(w *Worker) { w.Handle("job", handler) })
	waitFor(t, 10*time.Second, "a grandchild to run on the thief", gated.Load)
	thief.Close()
	time.Sleep(500 * time.Millisecond) // well under a lease: no audit yet
	lender.mu.Lock()
	n := len(lender.loans)
	lender.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d loans still out with a thief that closed", n)
	}
	h.wait("root")
}

package cluster

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestLoanReplyFitsMessage: a steal reply carries payloads base64
// encoded, a third larger than counted raw, and takeBack stopped only
// once it was past maxStealBytes. Two jobs of 400 KiB made a reply above
// the servers' 1 MiB limit: the victim's Respond failed, its loan reached
// no thief, and the jobs waited for the audit to take them back.
func TestLoanReplyFitsMessage(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithMaxPayload(512<<10))
	gBusy := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "busy" {
			gate(ctx, gBusy)
		}
		return nil, nil
	}
	lender := h.busyLender(handler)
	ctx := context.Background()
	payload := make([]byte, 400<<10)
	var ids []string
	for i := range 3 {
		id := "big" + strconv.Itoa(i)
		if err := h.client.Submit(ctx, id, "job", payload, To("lender")); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	h.worker("thief", func(w *Worker) { w.Handle("job", handler) })
	for _, id := range ids {
		h.wait(id)
	}
	close(gBusy)
	h.wait("busy")
	if n := lender.Stats().TakenBack; n != 0 {
		t.Fatalf("the lender took back %d jobs from a live thief", n)
	}
}

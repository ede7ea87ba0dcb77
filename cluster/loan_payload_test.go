package cluster

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoanThiefSmallerPayloadLimit: a thief configured with a smaller
// WithMaxPayload than its lender borrows a loan in which one job's
// payload is above its own limit. It must not drop that job and return
// the loan as finished: the lender would let the job go, its record left
// under its name that nobody runs. Every job runs and completes.
func TestLoanThiefSmallerPayloadLimit(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	gBusy := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "busy" {
			gate(ctx, gBusy)
		}
		return []byte(j.Worker()), nil
	}
	h.busyLender(handler)
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		id := "s" + strconv.Itoa(i)
		var payload []byte
		if i == 2 {
			payload = []byte(strings.Repeat("x", 100))
		}
		if err := h.client.Submit(ctx, id, "job", payload, To("lender")); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	thief := h.worker("thief", func(w *Worker) { w.Handle("job", handler) }, WithMaxPayload(16))
	waitFor(t, 10*time.Second, "a loan", func() bool { return thief.Stats().Stolen > 0 })
	time.Sleep(500 * time.Millisecond)
	close(gBusy)
	for _, id := range ids {
		c, cancel := context.WithTimeout(ctx, 8*time.Second)
		r, err := h.client.Wait(c, id)
		cancel()
		if err != nil {
			t.Fatalf("%s never completed: %v (runs %d)", id, err, h.runCount(id))
		}
		if r.Err != nil {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	checkQuiet(t, h, len(ids)+1)
}

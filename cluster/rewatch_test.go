package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestFenceRewatchesMembers: a worker fenced because the workers bucket
// was created again (a restart of the servers, which keep it in memory)
// by another process reads its view again. Before, only the worker whose
// own renewal found the bucket gone restarted its watch; the others
// fenced and went on with a watch resumed on the new bucket at a sequence
// of the old one, which missed the departures written below it. The
// lowest name then kept a worker that had left in its view, and its
// orphan scans skipped that worker's records as a member's: a record
// placed on it was stranded while the view stayed stale.
func TestFenceRewatchesMembers(t *testing.T) {
	h := newHarness(t, WithLease(time.Second))
	h.worker("a", func(w *Worker) {
		w.Handle("t", func(ctx context.Context, j *Job) ([]byte, error) { return nil, nil })
	})
	c := h.worker("c", func(w *Worker) {})
	time.Sleep(2 * time.Second) // renewals raise the old bucket's sequence
	ctx := context.Background()
	if err := h.client.st.js.DeleteKeyValue(ctx, h.client.cfg.workersBucket()); err != nil {
		t.Fatal(err)
	}
	if err := h.client.st.reopenWorkers(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a and c to register again", func() bool { return h.leaseHeld("a") && h.leaseHeld("c") })
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(&record{ID: "j1", Type: "t"})
	if _, err := h.client.st.putSubmitted(ctx, "c", "j1", data); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := h.client.Wait(wctx, "j1"); err != nil {
		t.Fatalf("the record left under c, which closed, was not taken over within 10 s (10 leases): %v", err)
	}
}

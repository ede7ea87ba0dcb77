package cluster

import (
	"context"
	"testing"
	"time"
)

// shrinkDupWindow sets the jobs stream's duplicate window to d, so that a
// test can submit an id again past it. It updates the stream twice: an
// update that changes the window makes the server's purge of old ids
// fire at once, before it stores the new window (nats-server v2.15.2,
// server/stream.go, the stream's update), so that the first purge may
// still use the old window and put off the next one by as long. The
// second update's purge sees the window of the first.
func shrinkDupWindow(t *testing.T, h *harness, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	str, err := h.client.st.js.Stream(ctx, "KV_"+h.client.cfg.jobsBucket())
	if err != nil {
		t.Fatal(err)
	}
	sc := str.CachedInfo().Config
	for _, win := range []time.Duration{d + time.Millisecond, d} {
		sc.Duplicates = win
		if _, err := h.client.st.js.UpdateStream(ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
}

// TestResubmitRunningPastWindow: a job is running on w1 when a client
// submits its id again to w1, past the duplicate window. The package
// states the limit (doc.go, Limits): the second submission is accepted
// and writes over the record, the running job's completion is refused,
// and the job runs again. What still holds is checked here: exactly one
// completion is recorded, the job runs at most twice, and nothing is left
// behind. (Checking the record key as well would need every submission
// to be an atomic batch of two messages: about 25 % more CPU a flat job
// in clusterbench, for a case that needs the same id twice minutes apart
// on the same worker.)
func TestResubmitRunningPastWindow(t *testing.T) {
	h := newHarness(t, WithLease(2*time.Second))
	block := make(chan struct{})
	h.worker("w1", func(w *Worker) {
		w.Handle("once", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			gate(ctx, block)
			return []byte("ok"), nil
		})
	}, WithStealMode(StealOff))
	h.ready("w1")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "x", "once", []byte("first"), To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "x to run", func() bool { return h.runCount("x") == 1 })
	shrinkDupWindow(t, h, 100*time.Millisecond)
	time.Sleep(time.Second) // past the window
	if err := h.client.Submit(ctx, "x", "once", []byte("second"), To("w1")); err != nil {
		t.Fatalf("second submission past the window: %v, want it accepted (see Limits)", err)
	}
	time.Sleep(300 * time.Millisecond) // its echo reaches w1
	close(block)
	if r := h.wait("x"); string(r.Value) != "ok" {
		t.Errorf("x: value %q, want ok", r.Value)
	}
	checkQuiet(t, h, 1)
	if n := h.runCount("x"); n < 1 || n > 2 {
		t.Errorf("x ran %d times, want once or twice", n)
	}
}

package cluster

import (
	"context"
	"testing"
	"time"
)

// TestBundleIDOfCompletedJob: a bundle written by other means under the
// id of a job completed before is not taken for completed when a worker
// loads it at its start: its jobs run and are recorded.
func TestBundleIDOfCompletedJob(t *testing.T) {
	h := newHarness(t)
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "b1", "job", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("b1")
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.st.put(context.Background(), qKey("w1", "b1"),
		[]byte(`{"id":"b1","type":"bundle","bundle":[{"id":"m1","type":"job"},{"id":"m2","type":"job"}]}`), "raw-b1", "", 0); err != nil {
		t.Fatal(err)
	}
	h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	for _, id := range []string{"m1", "m2"} {
		if r := h.wait(id); r.Err != nil {
			t.Errorf("%s: %+v", id, r)
		}
	}
	waitFor(t, 10*time.Second, "no record left", func() bool { return h.count("q.>") == 0 })
}

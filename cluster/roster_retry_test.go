package cluster

import (
	"context"
	"testing"
	"time"
)

// TestSubmitDuplicateAfterRosterReadFails: the first attempt of a Submit
// fails while reading the workers bucket (no answer within the request
// timeout), before any record was sent; the retry finds the job completed.
// Nothing of this call can have been stored, so the answer is
// ErrDuplicateJob, not ErrMaybeStored ("an attempt's answer was lost"):
// only a sent write can have an answer lost.
func TestSubmitDuplicateAfterRosterReadFails(t *testing.T) {
	h := newHarness(t, WithRequestTimeout(time.Second))
	h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "j1", "t", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("j1")
	c, pv := proxiedClient(t, h, WithRequestTimeout(300*time.Millisecond))
	// The client has read no roster yet: its first attempt reads the
	// workers bucket, and gets no answer.
	pv.blackhole(true, true)
	time.AfterFunc(450*time.Millisecond, pv.heal)
	err := c.Submit(context.Background(), "j1", "t", nil)
	if err != ErrDuplicateJob {
		t.Fatalf("err %v, want ErrDuplicateJob: no record was sent before the retry", err)
	}
}

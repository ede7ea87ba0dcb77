package cluster

import (
	"context"
	"testing"
	"time"
)

// shrinkDupWindow sets the jobs stream's duplicate window to d, so that a
// test can submit an id again past it.
func shrinkDupWindow(t *testing.T, h *harness, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	str, err := h.client.st.js.Stream(ctx, "KV_"+h.client.cfg.jobsBucket())
	if err != nil {
		t.Fatal(err)
	}
	sc := str.CachedInfo().Config
	sc.Duplicates = d
	if _, err := h.client.st.js.UpdateStream(ctx, sc); err != nil {
		t.Fatal(err)
	}
}

// TestResubmitRunningPastWindow: a job is running on w1 when a client
// submits its id again to w1, past the duplicate window. The second
// submission must not write over the running job's record (the worker
// refused it as "held here" before clients wrote records): the running
// job's completion is then refused and the job runs a second time,
// although nothing crashed, was fenced or stolen.
func TestResubmitRunningPastWindow(t *testing.T) {
	h := newHarness(t, WithLease(2*time.Second))
	block := make(chan struct{})
	w1 := h.worker("w1", func(w *Worker) {
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
	err := h.client.Submit(ctx, "x", "once", []byte("second"), To("w1"))
	t.Logf("second submission: %v", err)
	time.Sleep(300 * time.Millisecond) // its echo reaches w1
	close(block)
	h.wait("x")
	checkQuiet(t, h, 1)
	s := w1.Stats()
	t.Logf("runs %d, stats %+v", h.runCount("x"), s)
	if n := h.runCount("x"); n != 1 {
		t.Errorf("x ran %d times, want once: the second submission (err %v) wrote over the running job's record", n, err)
	}
	if s.Refused != 0 {
		t.Errorf("%d completions refused, want 0", s.Refused)
	}
}

package cluster

import (
	"context"
	"testing"
	"time"
)

// TestSubmitToWorkerThatLeft: a client whose roster still lists a worker
// that closed places a job on it after the survivors' scan at the leave;
// a later scan (the expiry of the lease's delete marker, a lease after
// the leave, or scanAfterLeave's), well before the periodic one (4
// leases), takes the record over, and the job runs once. Without either
// it waits for the periodic scan and fails.
func TestSubmitToWorkerThatLeft(t *testing.T) {
	const lease, timeout = 2 * time.Second, 500 * time.Millisecond
	h := newHarness(t, WithLease(lease), WithRequestTimeout(timeout))
	h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
	w2 := h.worker("w2", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
	h.ready("w1", "w2")
	ctx := context.Background()
	if _, err := h.client.workerNames(ctx, true); err != nil {
		t.Fatal(err)
	}
	left := time.Now()
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(lease / 4) // the survivors' scan at the leave is over; the roster is still fresh
	if err := h.client.Submit(ctx, "late", "t", nil, To("w2")); err != nil {
		t.Fatalf("submission on a roster read %v ago: %v", time.Since(left), err)
	}
	if h.count("q.w2.late") != 1 {
		t.Fatal("the record is not under the name that left")
	}
	wctx, cancel := context.WithTimeout(ctx, scanAfterLeave(lease, timeout)+2*time.Second)
	defer cancel()
	if _, err := h.client.Wait(wctx, "late"); err != nil {
		t.Fatalf("not run %v after the leave (the periodic scan comes at %v): %v", time.Since(left), 4*lease, err)
	}
	if n := h.runCount("late"); n != 1 {
		t.Errorf("ran %d times, want once", n)
	}
}

// TestSubmitWhenLastWorkerLeft: a submission on a roster read before the
// only worker left is stored under its name, not refused; the next worker
// to start takes the record over and runs it once.
func TestSubmitWhenLastWorkerLeft(t *testing.T) {
	const lease, timeout = 2 * time.Second, 500 * time.Millisecond
	h := newHarness(t, WithLease(lease), WithRequestTimeout(timeout))
	w1 := h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
	h.ready("w1")
	ctx := context.Background()
	if _, err := h.client.workerNames(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Submit(ctx, "late", "t", nil); err != nil {
		t.Fatalf("submission on a fresh roster after the last worker left: %v", err)
	}
	if h.count("q.w1.late") != 1 {
		t.Fatal("the record is not under the name that left")
	}
	h.worker("w2", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
	wctx, cancel := context.WithTimeout(ctx, scanAfterLeave(lease, timeout)+2*time.Second)
	defer cancel()
	if _, err := h.client.Wait(wctx, "late"); err != nil {
		t.Fatalf("the next worker to start did not run it: %v", err)
	}
	if n := h.runCount("late"); n != 1 {
		t.Errorf("ran %d times, want once", n)
	}
}

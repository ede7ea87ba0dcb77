package cluster

import (
	"context"
	"testing"
	"time"
)

// TestHandleAllStolenFrom: a catch-all handler runs every type without a
// handler of its own, a specific handler still wins for its type, and
// Job.StolenFrom names the victim of the worker's own steal and is empty
// for a job submitted to it.
//
// w1's job holds its one slot until w2 has stolen and completed one of the
// two queued behind it: with a job of 300 ms, a loaded machine could let
// w1 run all three before w2 had started and stolen one.
func TestHandleAllStolenFrom(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	h.worker("w1", func(w *Worker) {
		w.Handle("blk", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			gate(ctx, release)
			return []byte("done:" + j.ID), nil
		})
	}, WithStealMode(StealOff))
	ids := h.submitN(3, "blk", To("w1")) // w1 runs j0; j1 and j2 wait to be stolen
	all := func(ctx context.Context, j *Job) ([]byte, error) {
		return []byte("all:" + j.Type + ":" + j.StolenFrom), nil
	}
	h.worker("w2", func(w *Worker) {
		w.HandleAll(all)
		w.Handle("own", func(ctx context.Context, j *Job) ([]byte, error) { return []byte("own"), nil })
	}, WithStealMode(StealOne))
	ctx := context.Background()
	for id, typ := range map[string]string{"x": "other", "y": "own"} {
		if err := h.client.Submit(ctx, id, typ, nil, To("w2")); err != nil {
			t.Fatal(err)
		}
	}
	if r := h.wait("x"); r.Err != nil || string(r.Value) != "all:other:" {
		t.Errorf("x (submitted to w2, no handler of its type): %v %q, want all:other:", r.Err, r.Value)
	}
	if r := h.wait("y"); r.Err != nil || string(r.Value) != "own" {
		t.Errorf("y (type with its own handler): %v %q, want own", r.Err, r.Value)
	}
	// While w1 holds j0, only a thief can complete j1 or j2.
	waitFor(t, 20*time.Second, "w2 to steal and complete one of w1's queued jobs", func() bool {
		return h.count("d.j1")+h.count("d.j2") > 0
	})
	close(release)
	stolen := 0
	for _, id := range ids {
		r := h.wait(id)
		switch {
		case r.Err != nil:
			t.Errorf("%s: %v", id, r.Err)
		case r.Worker == "w2":
			stolen++
			if string(r.Value) != "all:blk:w1" {
				t.Errorf("%s stolen by w2: result %q, want all:blk:w1", id, r.Value)
			}
		}
	}
	if stolen == 0 {
		t.Error("w2 stole none of w1's queued jobs")
	}
}

package cluster

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Client.Steal moves a queued job from a busy worker to an idle one, which
// runs it; Workers reports each worker's queue; bad requests move nothing.
func TestClientStealAndWorkers(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithStealMode(StealOff), WithSlots(1))
	release := make(chan struct{})
	blocker := func(ctx context.Context, j *Job) ([]byte, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return []byte(j.Worker()), nil
	}
	h.worker("w1", func(w *Worker) { w.Handle("block", blocker) })
	h.worker("w2", func(w *Worker) { w.Handle("block", blocker) })
	ids := h.submitN(4, "block", To("w1"))
	ctx := context.Background()
	queueOf := func(name string) int {
		t.Helper()
		states := bothWorkers(t, h)
		return map[string]int{"w1": states[0].Queue, "w2": states[1].Queue}[name]
	}
	// w1 runs one job (one slot) and queues three.
	deadline := time.Now().Add(10 * time.Second)
	for queueOf("w1") != 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if q := queueOf("w1"); q != 3 {
		t.Fatalf("w1 queue %d, want 3", q)
	}
	for _, tc := range []struct {
		thief, victim string
		want          error
	}{
		{"w9", "w1", ErrUnknownWorker}, {"w2", "w9", ErrUnknownWorker},
		{"w1", "w1", ErrSameWorker}, {"w 2", "w1", ErrInvalidName},
	} {
		if _, err := h.client.Steal(ctx, tc.thief, tc.victim, 1); !errors.Is(err, tc.want) {
			t.Errorf("steal %s from %s: %v, want %v", tc.thief, tc.victim, err, tc.want)
		}
	}
	if q := queueOf("w1"); q != 3 || h.count("q.w2.>") != 0 {
		t.Fatalf("a refused steal moved jobs: w1 queue %d, %d records at w2", q, h.count("q.w2.>"))
	}
	res, err := h.client.Steal(ctx, "w2", "w1", 1)
	if err != nil || len(res.Jobs) != 1 || res.VictimQueue != 2 || res.Jobs[0] != ids[3] {
		t.Fatalf("steal: %+v, %v; want the back job %s and 2 left", res, err, ids[3])
	}
	// n > 0 takes up to n, not up to half: both of the 2 left.
	res2, err := h.client.Steal(ctx, "w2", "w1", 2)
	if err != nil || len(res2.Jobs) != 2 || res2.VictimQueue != 0 {
		t.Fatalf("steal of 2 from a queue of 2: %+v, %v; want both and none left", res2, err)
	}
	close(release)
	for _, id := range append(res.Jobs, res2.Jobs...) {
		if r := h.wait(id); r.Worker != "w2" || string(r.Value) != "w2" {
			t.Fatalf("stolen job %s recorded by %s (%s), want w2", id, r.Worker, r.Value)
		}
	}
	if r := h.wait(ids[0]); r.Worker != "w1" {
		t.Errorf("%s ran on %s, want w1", ids[0], r.Worker)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := h.client.WaitIdle(wctx); err != nil {
		t.Fatal(err)
	}
	states := bothWorkers(t, h)
	if states[0].Completed != 1 || states[0].Given != 3 || states[1].Completed != 3 {
		t.Fatalf("final states %+v", states)
	}
}

// bothWorkers returns Workers once w1 and w2 both answered it. Workers
// lists the workers that answered within a quarter of the request timeout
// (500 ms): a loaded machine can make one of them late, so a short answer
// is asked again (for at most 10 s).
func bothWorkers(t *testing.T, h *harness) []WorkerState {
	t.Helper()
	var states []WorkerState
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		states, err = h.client.Workers(context.Background())
		if err == nil && len(states) == 2 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || len(states) != 2 || states[0].Name != "w1" || states[1].Name != "w2" {
		t.Fatalf("workers %+v, %v", states, err)
	}
	return states
}

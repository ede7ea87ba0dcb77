package cluster

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSupersededStopsServing: a worker cut off past its lease (as a
// process paused with SIGSTOP is) finds, when it is heard again, that a
// new worker of the same name registered meanwhile. It must stop serving
// at once: no subscription, no watch, no job; Err says why and Done is
// closed. Jobs submitted to the name run once, on the new worker, and none
// is refused as a duplicate.
func TestSupersededStopsServing(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithStealMode(StealOff))
	p := newProxy(t, hostPort(h.e.URL()))
	job := func(name string) func(*Worker) {
		return func(w *Worker) {
			w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
				h.ran(j.ID + "@" + name)
				return []byte(name), nil
			})
		}
	}
	old := h.workerOn(tcpConn(t, p.url()), "x1", job("old"))
	h.ready("x1")
	p.blackhole(true, true)
	waitFor(t, 10*time.Second, "x1's lease to expire", func() bool { return !h.leaseHeld("x1") })
	h.worker("x1", job("new"))
	h.ready("x1")
	p.heal()
	select {
	case <-old.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the superseded worker still serves 10 s after it was heard again")
	}
	if err := old.Err(); !errors.Is(err, ErrSuperseded) {
		t.Fatalf("Err = %v, want ErrSuperseded", err)
	}
	const n = 20
	ids := submitTo(t, h, "s", n, "x1")
	for _, id := range ids {
		if r := h.wait(id); r.Err != nil || string(r.Value) != "new" {
			t.Errorf("%s: value %q, err %v; want it run by the new x1", id, r.Value, r.Err)
		}
	}
	for _, id := range ids {
		if o, nw := h.runCount(id+"@old"), h.runCount(id+"@new"); o != 0 || nw != 1 {
			t.Errorf("%s ran %d times on the old x1 and %d on the new, want 0 and 1", id, o, nw)
		}
	}
	if err := old.Close(); err != nil {
		t.Errorf("Close of the superseded worker: %v", err)
	}
}

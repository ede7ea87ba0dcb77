package cluster

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"
)

// gatedHandler counts runs in log and returns the worker's name; the job
// "long" announces its start on started and waits for release (at most
// 20 s, or until the worker closes), then tries to spawn a child and reports Spawn's error on spawned.
func gatedHandler(log *runLog, name string, started chan<- string, release <-chan struct{}, spawned chan<- error) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		log.add(j.ID, name)
		if j.ID != "long" {
			return []byte(name), nil
		}
		select {
		case started <- name:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case <-release:
		case <-ctx.Done(): // the worker closes: the test ended early
			return nil, ctx.Err()
		case <-time.After(20 * time.Second):
		}
		if spawned != nil {
			_, err := j.Spawn(ctx, "job", nil)
			spawned <- err
		}
		return []byte(name), nil
	}
}

// TestBlackholePastLease: a worker whose connection stops carrying bytes
// (a partition; its sockets stay open) for longer than its lease is taken
// for dead. A survivor takes its jobs over, including the one it is in the
// middle of. When the partition heals, the old worker's writes about that
// job (a spawn, then its completion, made while the survivor still runs
// the job) are refused, it fences itself and registers again, and it then
// runs new work.
func TestBlackholePastLease(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithStealMode(StealOff))
	p := newProxy(t, hostPort(h.e.URL()))
	log := newRunLog()
	started := make(chan string, 2)
	rel1, rel2 := make(chan struct{}), make(chan struct{})
	spawned := make(chan error, 1)
	w1 := h.workerOn(tcpConn(t, p.url()), "w1", func(w *Worker) {
		w.Handle("job", gatedHandler(log, "w1", started, rel1, spawned))
	}, WithSlots(1))
	h.worker("w2", func(w *Worker) { w.Handle("job", gatedHandler(log, "w2", started, rel2, nil)) }, WithSlots(2))
	h.ready("w1", "w2")
	ctx := context.Background()
	ids := []string{"long", "q0", "q1", "q2", "q3"}
	for _, id := range ids {
		if err := h.client.Submit(ctx, id, "job", nil, To("w1")); err != nil {
			t.Fatal(err)
		}
		if id == "long" && <-started != "w1" {
			t.Fatal("long did not start on w1")
		}
	}
	p.blackhole(true, true)
	t0 := time.Now()
	if who := <-started; who != "w2" { // taken over while w1 still runs it
		t.Fatalf("long started again on %s", who)
	}
	for _, id := range ids[1:] {
		if r := h.wait(id); r.Worker != "w2" || r.Attempt != 1 {
			t.Fatalf("%s: recorded by %s at attempt %d, want w2 after a takeover", id, r.Worker, r.Attempt)
		}
	}
	t.Logf("w1 blackholed: its jobs taken over after %v", time.Since(t0))
	p.heal()
	waitFor(t, 10*time.Second, "w1 to fence itself and register again", func() bool {
		return w1.Stats().Fenced >= 1 && h.leaseHeld("w1")
	})
	close(rel1) // w1's run of long now spawns and completes, too late
	if err := <-spawned; !errors.Is(err, ErrFenced) {
		t.Fatalf("w1's spawn from the job it lost: %v, want ErrFenced", err)
	}
	waitFor(t, 10*time.Second, "w1's late completion to be answered", func() bool {
		s := w1.Stats()
		return s.Refused+s.Completed > 0
	})
	if s := w1.Stats(); s.Refused != 1 || s.Completed != 0 {
		t.Fatalf("w1 after the partition: %+v, want its one completion refused", s)
	}
	close(rel2)
	if r := h.wait("long"); r.Worker != "w2" || r.Attempt != 1 {
		t.Fatalf("long: recorded by %s at attempt %d, want w2 after a takeover", r.Worker, r.Attempt)
	}
	if err := h.client.Submit(ctx, "after", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	if r := h.wait("after"); r.Worker != "w1" {
		t.Fatalf("a job for w1 after it healed was recorded by %s", r.Worker)
	}
	checkQuiet(t, h, len(ids)+1)
	for _, id := range ids[1:] {
		if runs := log.of(id); len(runs) != 1 {
			t.Errorf("%s ran on %v, want once (on w2): w1 must drop its queue when fenced", id, runs)
		}
	}
}

// checkQuiet waits (at most 10 s) for the cluster to be idle, then checks
// that the ledger holds want completions and no live record is left.
func checkQuiet(t *testing.T, h *harness, want int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.client.WaitIdle(ctx); err != nil {
		t.Fatalf("WaitIdle: %v", err)
	}
	if d, q := h.count("d.>"), h.count("q.>"); d != want || q != 0 {
		t.Fatalf("ledger holds %d completions (want %d) and %d live records (want 0)", d, want, q)
	}
}

// submitTo submits n jobs named prefix0.. to worker.
func submitTo(t *testing.T, h *harness, prefix string, n int, worker string) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = prefix + strconv.Itoa(i)
		if err := h.client.Submit(context.Background(), ids[i], "job", nil, To(worker)); err != nil {
			t.Fatalf("submit %s: %v", ids[i], err)
		}
	}
	h.held(worker, ids...)
	return ids
}

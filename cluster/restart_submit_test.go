package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestSubmitAcrossServerRestart: a live worker and a client stay up
// through a restart of the (only) server, which loses the workers bucket
// (memory storage) and keeps the jobs (file storage). A Submit right after
// the restart, on a roster older than lease/2, must queue the job once the
// worker has registered again (the worker is live throughout): not fail
// with ErrNoWorkers or a missing bucket. Before clients wrote records,
// the submission went to the worker's subject, which stays subscribed.
func TestSubmitAcrossServerRestart(t *testing.T) {
	rs := newRestartable(t)
	const lease = 2 * time.Second
	h := rs.harness(WithLease(lease), WithStorage(FileStorage))
	nc := h.client.nc
	job := func(w *Worker) { w.Handle("job", h.sleeper(0)) }
	h.workerOn(tcpConn(t, rs.p.url()), "w1", job)
	h.ready("w1")
	submitTo(t, h, "before", 1, "w1")
	h.wait("before0")
	time.Sleep(lease/2 + 100*time.Millisecond) // the client's roster is stale

	rs.restart()
	waitFor(t, 10*time.Second, "the client to reconnect", func() bool { return nc.Status() == nats.CONNECTED })

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	if err := h.client.Submit(ctx, "after", "job", nil); err != nil {
		t.Fatalf("Submit %v after the restart, worker w1 live throughout: %v", time.Since(start), err)
	}
	h.wait("after")
}

package cluster

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// TestRestartLiveWorker: a worker that stays up while the (only) server
// restarts on file storage carries on. The restart loses the workers
// bucket (leases live in memory): the worker creates it again, registers
// again, sees a worker that joins afterwards, and runs jobs. The client,
// made before the restart, must not be what brings the bucket back.
func TestRestartLiveWorker(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	e, err := natsserver.Start(natsserver.StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mu.Lock(); e.Shutdown(); mu.Unlock() })
	p := newProxy(t, hostPort(e.URL()))
	opts := []Option{WithLease(time.Second), WithStorage(FileStorage)}
	h := &harness{t: t, opts: opts, runs: map[string]int{}}
	if h.client, err = NewClient(context.Background(), tcpConn(t, p.url()), opts...); err != nil {
		t.Fatal(err)
	}
	job := func(w *Worker) { w.Handle("job", h.sleeper(0)) }
	w1 := h.workerOn(tcpConn(t, p.url()), "w1", job)
	h.ready("w1")
	submitTo(t, h, "before", 1, "w1")
	h.wait("before0")

	mu.Lock()
	e.Shutdown()
	if e, err = natsserver.Start(natsserver.StoreDir(dir)); err != nil {
		mu.Unlock()
		t.Fatal(err)
	}
	p.setTarget(hostPort(e.URL()))
	mu.Unlock()
	p.reset()

	waitFor(t, 10*time.Second, "w1 to hold a lease after the restart", func() bool { return h.leaseHeld("w1") })
	h.workerOn(tcpConn(t, p.url()), "w2", job)
	waitFor(t, 10*time.Second, "w1 to see w2 join", func() bool { return w1.members.has("w2") })
	for _, to := range []string{"w1", "w2"} {
		id := submitTo(t, h, "after-"+to+"-", 1, to)[0]
		if r := h.wait(id); r.Worker != to || r.Err != nil {
			t.Fatalf("%s: recorded by %s, err %v", id, r.Worker, r.Err)
		}
	}
}

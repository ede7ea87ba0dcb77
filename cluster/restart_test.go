package cluster

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// TestServerRestart: with file storage, queued jobs survive a restart of
// the (only) NATS server: a worker started afterwards finds them, as
// orphans, and runs every one.
func TestServerRestart(t *testing.T) {
	dir := t.TempDir()
	opts := []Option{WithLease(time.Second), WithStorage(FileStorage), WithSlots(1)}
	ctx := context.Background()
	e1, err := natsserver.Start(natsserver.StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	nc1, err := e1.Connect()
	if err != nil {
		t.Fatal(err)
	}
	w1, _ := NewWorker(nc1, "w1", append(opts, WithStealMode(StealOff))...)
	w1.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
		<-ctx.Done() // never finishes here
		return nil, ctx.Err()
	})
	if err := w1.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c1, err := NewClient(ctx, nc1, opts...)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	for i := range n {
		if err := c1.Submit(ctx, "r"+strconv.Itoa(i), "job", nil); err != nil {
			t.Fatal(err)
		}
	}
	w1.Close()
	nc1.Close()
	e1.Shutdown()

	e2, err := natsserver.Start(natsserver.StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e2.Shutdown)
	nc2, err := e2.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc2.Close)
	w2, _ := NewWorker(nc2, "w2", opts...)
	w2.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) { return []byte("ok"), nil })
	if err := w2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w2.Close() })
	c2, _ := NewClient(ctx, nc2, opts...)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for i := range n {
		r, err := c2.Wait(wctx, "r"+strconv.Itoa(i))
		if err != nil || r.Err != nil || r.Worker != "w2" {
			t.Fatalf("r%d after the restart: %v %+v", i, err, r)
		}
	}
}

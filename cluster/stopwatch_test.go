package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster/natsserver"
)

// TestWaitEndsWithCtxWithoutServer: a Wait whose ctx ends while its
// server is gone returns when ctx ends, not once the servers failed to
// answer the deletion of its watch's consumer (5 s in nats.go, whatever
// WithRequestTimeout says).
func TestWaitEndsWithCtxWithoutServer(t *testing.T) {
	h := newHarness(t, WithRequestTimeout(300*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		_, err := h.client.Wait(ctx, "never")
		got <- err
	}()
	time.Sleep(200 * time.Millisecond) // the watch started
	h.e.Shutdown()
	select {
	case err := <-got:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(2500 * time.Millisecond):
		t.Fatal("Wait went on 1.5 s after its ctx ended")
	}
}

// TestCloseWithoutServerBounded: a worker closed while its server is gone
// returns ErrNotHandedOver within about its request timeouts; stopping
// each of its watches waited 5 s for the servers before.
func TestCloseWithoutServerBounded(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithRequestTimeout(300*time.Millisecond))
	w := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	h.ready("w1")
	h.e.Shutdown()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- w.Close() }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotHandedOver) {
			t.Fatalf("Close %v, want ErrNotHandedOver", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Close took %v with a 300 ms request timeout", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return")
	}
}

// TestListingBoundedWhenStopUnanswered: Idle and Workers list the keys
// of a bucket, and the listing's watch was stopped by nats.go itself
// (KeyValue.Keys, ListKeysFiltered), which waits 5 s for the servers to
// delete its consumer: a listing that ended as the servers went away held
// Idle, Workers and a worker's Close (its scan for orphans) 5 s past their
// request timeout. Here the servers never answer the deletion: the user
// may not send it.
func TestListingBoundedWhenStopUnanswered(t *testing.T) {
	e, err := natsserver.Start(natsserver.StoreDir(t.TempDir()), natsserver.ServerOptions(func(o *server.Options) {
		o.Users = []*server.User{{Username: "u", Password: "p", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{"$JS.API.CONSUMER.DELETE.>"}},
		}}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	nc, err := e.Connect(nats.UserInfo("u", "p"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	c, err := NewClient(context.Background(), nc, WithRequestTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if idle, err := c.Idle(ctx); !idle || err != nil {
		t.Errorf("Idle = %v, %v; want true", idle, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Idle took %v with a 300 ms request timeout", d)
	}
	start = time.Now()
	if ws, err := c.Workers(ctx); len(ws) != 0 || err != nil {
		t.Errorf("Workers = %v, %v; want none", ws, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Workers took %v with a 300 ms request timeout", d)
	}
}

package cluster

import (
	"context"
	"errors"
	"testing"
	"time"
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

package cluster

import (
	"errors"
	"testing"
	"time"
)

// TestWorkerLosesServer: a worker whose server is gone for good stops
// serving once it has not renewed its lease for WithServerLossLimit: Done
// closes and Err wraps ErrServerLost. One closed while its server is
// gone returns ErrNotHandedOver: no server took its lease back.
func TestWorkerLosesServer(t *testing.T) {
	t.Run("loss limit", func(t *testing.T) {
		h := newHarness(t, WithLease(time.Second), WithRequestTimeout(300*time.Millisecond))
		w := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) }, WithServerLossLimit(2*time.Second))
		h.ready("w1")
		lost := time.Now()
		h.e.Shutdown()
		select {
		case <-w.Done():
		case <-time.After(15 * time.Second):
			t.Fatalf("still serving %v after its server went away (limit 2 s)", time.Since(lost))
		}
		if err := w.Err(); !errors.Is(err, ErrServerLost) {
			t.Fatalf("Err %v, want ErrServerLost", err)
		}
	})
	t.Run("close", func(t *testing.T) {
		h := newHarness(t, WithLease(time.Second), WithRequestTimeout(300*time.Millisecond))
		w := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
		h.ready("w1")
		h.e.Shutdown()
		done := make(chan error, 1)
		go func() { done <- w.Close() }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotHandedOver) {
				t.Fatalf("Close %v, want ErrNotHandedOver", err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("Close did not return")
		}
	})
}

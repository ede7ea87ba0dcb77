package cluster

import (
	"context"
	"errors"
	"testing"
	"time"
)

// closeNoPanic runs w.Close, failing the test if it panics or takes more
// than 10 s.
func closeNoPanic(t *testing.T, w *Worker) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- &Error{"test", "Close panicked"}
			}
		}()
		done <- w.Close()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs")
		return nil
	}
}

// TestCloseAfterFailedStart: a program that defers Close after NewWorker
// and whose Start fails (the name in use, or the connection closed) gets
// nil from Close, not a panic, and Done is closed.
func TestCloseAfterFailedStart(t *testing.T) {
	h := newHarness(t)
	h.worker("a", func(*Worker) {})
	h.ready("a")
	closed := h.conn()
	closed.Close()
	for _, tc := range []struct {
		name string
		w    func() (*Worker, error)
		want error
	}{
		{"name in use", func() (*Worker, error) { return NewWorker(h.conn(), "a") }, ErrNameInUse},
		{"closed conn", func() (*Worker, error) { return NewWorker(closed, "b") }, ErrNotConnected},
	} {
		w, err := tc.w()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = w.Start(ctx)
		cancel()
		if !errors.Is(err, tc.want) {
			t.Fatalf("%s: Start = %v, want %v", tc.name, err, tc.want)
		}
		if err := closeNoPanic(t, w); err != nil {
			t.Errorf("%s: Close after failed Start = %v", tc.name, err)
		}
		select {
		case <-w.Done():
		default:
			t.Errorf("%s: Done open after Close", tc.name)
		}
	}
}

// TestStartAfterClose: Close before Start is idempotent, and a later Start
// returns ErrClosed and serves nothing.
func TestStartAfterClose(t *testing.T) {
	h := newHarness(t)
	w, err := NewWorker(h.conn(), "c")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := closeNoPanic(t, w); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.Start(ctx); !errors.Is(err, ErrClosed) {
		t.Cleanup(func() { w.Close() })
		t.Fatalf("Start after Close = %v, want ErrClosed", err)
	}
	if ws, err := h.client.Workers(ctx); err != nil || len(ws) != 0 {
		t.Fatalf("Workers = %v, %v; want none", ws, err)
	}
}

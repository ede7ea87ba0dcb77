package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// proxiedClient is a client whose connection goes through a proxy the test
// can hold or cut.
func proxiedClient(t *testing.T, h *harness, opts ...Option) (*Client, *proxy) {
	t.Helper()
	pv := newProxy(t, hostPort(h.e.URL()))
	c, err := NewClient(context.Background(), tcpConn(t, pv.url()), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, pv
}

// TestSubmitRetriesTransientErrors: Submit retries a put whose answer does
// not come, and stops when ctx ends; a retry refused as a duplicate after
// a lost answer is ErrMaybeStored, not ErrDuplicateJob (the job may be this
// call's), and the job runs once; a first duplicate is final at once.
func TestSubmitRetriesTransientErrors(t *testing.T) {
	t.Run("answer lost, then duplicate", func(t *testing.T) {
		h := newHarness(t, WithRequestTimeout(time.Second))
		h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
		h.ready("w1")
		c, pv := proxiedClient(t, h, WithRequestTimeout(time.Second))
		if _, err := c.workerNames(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		pv.loseAnswers() // the put goes through, its answer does not
		time.AfterFunc(1500*time.Millisecond, pv.heal)
		err := c.Submit(context.Background(), "j1", "t", nil)
		if !errors.Is(err, ErrMaybeStored) || errors.Is(err, ErrDuplicateJob) {
			t.Fatalf("err %v, want ErrMaybeStored", err)
		}
		if _, err := h.client.Wait(waitCtx(t), "j1"); err != nil {
			t.Fatal(err)
		}
		if n := h.runCount("j1"); n != 1 {
			t.Errorf("j1 ran %d times, want once", n)
		}
	})
	t.Run("duplicate at once", func(t *testing.T) {
		h := newHarness(t)
		h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
		h.ready("w1")
		ctx := context.Background()
		if err := h.client.Submit(ctx, "j1", "t", nil); err != nil {
			t.Fatal(err)
		}
		if err := h.client.Submit(ctx, "j1", "t", nil); err != ErrDuplicateJob {
			t.Errorf("second submission: err %v, want ErrDuplicateJob", err)
		}
	})
	t.Run("no answer until ctx ends", func(t *testing.T) {
		h := newHarness(t)
		h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
		h.ready("w1")
		c, pv := proxiedClient(t, h, WithRequestTimeout(100*time.Millisecond))
		if _, err := c.workerNames(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		pv.blackhole(true, true)
		defer pv.heal()
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		if err := c.Submit(ctx, "j1", "t", nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v, want a deadline error", err)
		}
	})
	t.Run("no worker listening", func(t *testing.T) {
		h := newHarness(t, WithRequestTimeout(100*time.Millisecond))
		ctx := context.Background()
		if err := h.client.Submit(ctx, "j1", "t", nil); err != ErrNoWorkers {
			t.Errorf("no worker: err %v, want ErrNoWorkers at once", err)
		}
		h.worker("w1", func(w *Worker) { w.Handle("t", h.sleeper(0)) })
		h.ready("w1")
		if err := h.client.Submit(ctx, "j1", "t", nil, To("nobody")); err != ErrNoWorkers {
			t.Errorf("To(nobody): err %v, want ErrNoWorkers", err)
		}
		if err := h.client.Submit(ctx, "j1", "t", nil); err != nil {
			t.Errorf("a worker joined: err %v, want nil (the roster is read again)", err)
		}
		if _, err := h.client.Wait(waitCtx(t), "j1"); err != nil {
			t.Fatal(err)
		}
		if q, d := h.count("q.>"), h.count("d.>"); q != 0 || d != 1 {
			t.Errorf("%d records and %d completions, want 0 and 1: a refused submission wrote something", q, d)
		}
	})
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestWaitConnClosedMidWait: a Wait whose connection is closed while it
// waits returns nats.ErrConnectionClosed, as a Wait begun on a closed
// connection does and as WaitIdle's documentation says, not ErrClosed,
// which says that the worker or client is closed.
func TestWaitConnClosedMidWait(t *testing.T) {
	h := newHarness(t)
	nc := h.conn()
	c, err := NewClient(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.Wait(ctx, "never")
		got <- err
	}()
	time.Sleep(200 * time.Millisecond) // the watch started
	nc.Close()
	if err := <-got; !errors.Is(err, nats.ErrConnectionClosed) {
		t.Errorf("Wait when its connection closes = %v, want nats.ErrConnectionClosed", err)
	}
	if _, err := c.Wait(context.Background(), "never"); !errors.Is(err, nats.ErrConnectionClosed) {
		t.Errorf("Wait on a closed connection = %v, want nats.ErrConnectionClosed", err)
	}
}

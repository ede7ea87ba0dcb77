package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal"
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

// TestHandleRefusals: Handle names what is wrong with what it is given and
// changes nothing: an invalid type, a nil handler.
func TestHandleRefusals(t *testing.T) {
	h := newHarness(t)
	w := h.worker("w1", func(w *Worker) {})
	if err := w.Handle("", h.sleeper(0)); !errors.Is(err, ErrInvalidType) {
		t.Errorf("empty type: %v, want ErrInvalidType", err)
	}
	if err := w.Handle("job", nil); !errors.Is(err, ErrNilHandler) {
		t.Errorf("nil handler: %v, want ErrNilHandler", err)
	}
	if err := h.client.Submit(context.Background(), "j", "job", nil); err != nil {
		t.Fatal(err)
	}
	if r := h.wait("j"); !errors.Is(r.Err, ErrUnknownType) {
		t.Errorf("job of a type whose Handle was refused: %+v, want ErrUnknownType", r)
	}
}

// TestMalformedLoanAudit: a loan audit that does not decode is answered
// with a code that names the problem, not left to time out.
func TestMalformedLoanAudit(t *testing.T) {
	h := newHarness(t)
	h.worker("w1", func(w *Worker) {})
	h.ready("w1")
	m, err := h.conn().Request(h.client.cfg.subject("w.w1.loans"), []byte("not json"), 5*time.Second)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var rep submitReply
	if err := json.Unmarshal(m.Data, &rep); err != nil || rep.Code != ErrMalformedJob.Code || !strings.Contains(rep.Text, "loan audit") {
		t.Errorf("answer %s (%v), want code %s naming the loan audit", m.Data, err, ErrMalformedJob.Code)
	}
}

// TestCloseFromHandler: a handler may close its own worker. Close returns
// at once; the worker finishes closing when the handler has returned: its
// result is recorded, its lease given up, Done closed, and its pool
// closed (Close left the pool's goroutines running for ever, and returned
// the pool's "called from a task" error).
func TestCloseFromHandler(t *testing.T) {
	h := newHarness(t)
	closed := make(chan error, 1)
	w := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			closed <- w.Close()
			return []byte("ok"), nil
		})
	})
	if err := h.client.Submit(context.Background(), "a", "job", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close from a handler = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close from a handler did not return in 10 s")
	}
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the worker closed from a handler is not done 10 s later")
	}
	if err := w.pool.Submit(context.Background(), func(*steal.Worker) {}); !errors.Is(err, steal.ErrClosed) {
		t.Errorf("its pool's Submit = %v, want steal.ErrClosed: the pool was left running", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := h.client.Wait(ctx, "a")
	if err != nil || string(r.Value) != "ok" {
		t.Fatalf("Wait = %+v, %v; want the handler's result recorded", r, err)
	}
	if states, err := h.client.Workers(ctx); err != nil || len(states) != 0 {
		t.Errorf("Workers = %v, %v; want none: the lease given up", states, err)
	}
}

// TestStartFailedIsNotRetried: as Start's documentation says, a Worker
// whose Start failed is not started again (ErrStarted), and NewClient
// checks a worker's options too, and the connection.
func TestStartFailedIsNotRetried(t *testing.T) {
	w, err := NewWorker(nil, "w1")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("Start on a nil connection = %v, want ErrNotConnected", err)
	}
	if err := w.Start(context.Background()); err != ErrStarted {
		t.Fatalf("Start after a failed Start = %v, want ErrStarted", err)
	}
	if _, err := NewClient(context.Background(), nil, WithSlots(0)); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("NewClient with WithSlots(0) = %v, want ErrInvalidOption", err)
	}
	if _, err := NewClient(context.Background(), nil); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("NewClient on a nil connection = %v, want ErrNotConnected", err)
	}
}

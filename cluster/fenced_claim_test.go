package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestHandlerErrFencedNotFenced: a handler that returns ErrFenced (or an
// error wrapping it) although its job's record is still this worker's,
// as when it passes on the error of a *Job kept past its own run, fails
// its job like any other error: the job is not left unrecorded on a
// worker that never lets go of it.
func TestHandlerErrFencedNotFenced(t *testing.T) {
	h := newHarness(t, WithStealMode(StealOff))
	h.worker("w1", func(w *Worker) {
		w.Handle("liar", func(context.Context, *Job) ([]byte, error) {
			return nil, fmt.Errorf("passed on: %w", ErrFenced)
		})
		w.Handle("ok", h.sleeper(0))
	}, WithSlots(1))
	h.ready("w1")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "liar", "liar", nil); err != nil {
		t.Fatal(err)
	}
	wctx0, cancel0 := context.WithTimeout(ctx, 10*time.Second)
	defer cancel0()
	r, err := h.client.Wait(wctx0, "liar")
	if err != nil {
		t.Fatalf("the job is never recorded: %v", err)
	}
	if !errors.Is(r.Err, ErrHandler) {
		t.Fatalf("result %+v, want a failure with ErrHandler", r)
	}
	if err := h.client.Submit(ctx, "next", "ok", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("next")
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := h.client.WaitIdle(wctx); err != nil {
		t.Fatalf("the worker does not go idle: %v", err)
	}
}

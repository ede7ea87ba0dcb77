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

// TestMemChildErrFencedNotFenced: with spawned jobs held in memory, a
// child whose handler returns ErrFenced although nothing was taken over
// (its root's record is still this worker's) fails as a child, and its
// root's completion is recorded: the root's record is not left behind on
// a worker that let go of it.
func TestMemChildErrFencedNotFenced(t *testing.T) {
	h := newHarness(t, WithStealMode(StealOff), WithSpawnRecords(false))
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("root", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			if _, err := j.Spawn(ctx, "liar", nil); err != nil {
				return nil, err
			}
			return []byte("root"), nil
		})
		w.Handle("liar", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			return nil, fmt.Errorf("passed on: %w", ErrFenced)
		})
	}, WithSlots(1))
	h.ready("w1")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "r", "root", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := h.client.Wait(wctx, "r")
	if err != nil {
		t.Fatalf("the root is never recorded: %v (records live: %d, runs of r: %d)", err, h.count("q.>"), h.runCount("r"))
	}
	if r.Err != nil || string(r.Value) != "root" {
		t.Errorf("r: %q, %v", r.Value, r.Err)
	}
	if st := w1.Stats(); st.ChildFailures != 1 {
		t.Errorf("stats %+v, want 1 child failure", st)
	}
	ictx, c := context.WithTimeout(ctx, 10*time.Second)
	defer c()
	if err := h.client.WaitIdle(ictx); err != nil {
		t.Fatalf("the worker does not go idle: %v", err)
	}
}

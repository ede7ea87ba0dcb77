package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// fakeIntake answers the submissions for worker "fake" with answers[i] for
// the i-th one; nil sends no answer, as when the answer is lost or the
// worker is stuck behind a leader election. Past the end of answers,
// every submission goes unanswered. It counts the submissions it saw.
func fakeIntake(t *testing.T, h *harness, answers ...*submitReply) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	nc := h.conn()
	_, err := nc.Subscribe(h.client.cfg.subject("w.fake.submit"), func(m *nats.Msg) {
		i := int(n.Add(1)) - 1
		if i < len(answers) && answers[i] != nil {
			b, _ := json.Marshal(answers[i])
			m.Respond(b)
		}
	})
	if err == nil {
		err = nc.Flush() // the server has the subscription before Submit
	}
	if err != nil {
		t.Fatal(err)
	}
	return &n
}

// TestSubmitRetriesTransientErrors checks that Submit retries a
// submission whose answer does not come and stops when ctx ends; that a
// duplicate after a lost answer is ErrMaybeStored, not ErrDuplicateJob
// (the job may be this call's); and that a first duplicate and other
// refusals are final after one attempt.
//
// In the cases that count attempts, an answer that is sent must arrive
// within the request timeout, or it counts as lost and the count is off:
// that timeout is a second, not 100 ms, which a loaded machine can take
// for the round trip through the server and the fake worker. Each lost
// answer costs the timeout.
func TestSubmitRetriesTransientErrors(t *testing.T) {
	ok := &submitReply{Worker: "fake"}
	dup := &submitReply{Code: ErrDuplicateJob.Code, Text: ErrDuplicateJob.Text}
	closed := &submitReply{Code: ErrClosed.Code, Text: ErrClosed.Text}
	for _, tc := range []struct {
		name     string
		answers  []*submitReply
		want     error
		attempts int32
	}{
		{"answer lost, then stored", []*submitReply{nil, nil, ok}, nil, 3},
		{"answer lost, then duplicate", []*submitReply{nil, dup}, ErrMaybeStored, 2},
		{"duplicate at once", []*submitReply{dup}, ErrDuplicateJob, 1},
		{"worker closing", []*submitReply{closed}, ErrClosed, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, WithRequestTimeout(time.Second))
			seen := fakeIntake(t, h, tc.answers...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := h.client.Submit(ctx, "j1", "t", nil, To("fake"))
			if !errors.Is(err, tc.want) || err == nil && tc.want != nil || tc.want != ErrDuplicateJob && errors.Is(err, ErrDuplicateJob) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
			if got := seen.Load(); got != tc.attempts {
				t.Errorf("%d submissions, want %d", got, tc.attempts)
			}
		})
	}
	t.Run("no answer until ctx ends", func(t *testing.T) {
		h := newHarness(t, WithRequestTimeout(100*time.Millisecond))
		seen := fakeIntake(t, h)
		ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
		defer cancel()
		err := h.client.Submit(ctx, "j1", "t", nil, To("fake"))
		if !errors.Is(err, context.DeadlineExceeded) || seen.Load() < 2 {
			t.Errorf("err %v after %d submissions, want a deadline error after 2 or more", err, seen.Load())
		}
	})
	t.Run("no worker listening", func(t *testing.T) {
		h := newHarness(t, WithRequestTimeout(100*time.Millisecond))
		err := h.client.Submit(context.Background(), "j1", "t", nil, To("nobody"))
		if err != ErrNoWorkers {
			t.Errorf("err %v, want ErrNoWorkers at once", err)
		}
	})
}

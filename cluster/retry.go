package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrUnavailable is returned (wrapped, with the last cause) by Spawn,
// Submit and the worker's other writes when the servers kept answering
// with transient errors for the whole retry window.
var ErrUnavailable = &Error{"unavailable", "servers unavailable"}

// retryWindow bounds how long a write is retried through transient errors.
// A server lost from a three-server cluster makes the replicated buckets
// elect new leaders, which takes the Raft election timeout of nats-server
// (4 to 9 s) plus catch-up; 30 s covers that several times over.
const retryWindow = 30 * time.Second

// Backoff between attempts: from retryFirst, doubling up to retryMax.
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = time.Second
)

// errUnavailable marks a server answer that says "not now": no leader,
// JetStream temporarily unavailable, a batch cut by a leader change.
var errUnavailable = errors.New("cluster: servers temporarily unavailable")

// transient reports whether err may clear on its own while ctx lives: the
// write was not applied, or its answer was lost, and trying again is safe
// because every write is a compare-and-swap or deduplicated by id.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	for _, t := range []error{errUnavailable, context.DeadlineExceeded, nats.ErrTimeout,
		nats.ErrNoResponders, jetstream.ErrNoStreamResponse, nats.ErrConnectionReconnecting,
		nats.ErrDisconnected, jetstream.ErrNoHeartbeat} {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// transientCode reports whether a JetStream API error says "try again":
// HTTP-like code 503 (no leader, JetStream or the last-sequence check
// temporarily unavailable), code 429 and too many batches in flight on
// the stream or the server (10210 for atomic batches from nats-server
// 2.14, 10211 for fast batches, 10176 in 2.12: see
// processJetStreamAtomicBatchMsg in server/stream.go), a batch whose
// first messages were lost in a leader change, or a message id whose
// earlier write a replicated stream has not stored yet (10158: the answer
// to a retry becomes a duplicate once it is stored, and the id is free
// again if it is dropped in a leader change).
func transientCode(e *apiError) bool {
	switch e.ErrCode {
	case 10158, 10175, 10176, 10210, 10211:
		return true
	}
	return e.Code == 503 || e.Code == 429
}

// retry calls write until it succeeds, fails with a permanent error, ctx
// ends or retryWindow passes; write gets the attempt number, from 0. After
// the window it returns ErrUnavailable wrapping the last error.
func retry(ctx context.Context, write func(attempt int) error) error {
	return retryWithin(ctx, retryWindow, write)
}

// retryWithin is retry with a window of its own.
func retryWithin(ctx context.Context, window time.Duration, write func(attempt int) error) error {
	start, wait := time.Now(), retryFirst
	for attempt := 0; ; attempt++ {
		err := write(attempt)
		if err == nil || !transient(ctx, err) {
			return err
		}
		if time.Since(start)+wait > window {
			return fmt.Errorf("%w: still failing after %v: %w", ErrUnavailable, window, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

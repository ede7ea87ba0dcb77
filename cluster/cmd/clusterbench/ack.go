package main

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The designs that record each completion (central-ledger, steal-wq)
// write it asynchronously and run their next job at once; an acker
// goroutine of each worker acknowledges a job once its writes are stored,
// so that no job is acknowledged, and so lost, without its completion.

// pendingAck is a job that has run: acknowledged once futs are stored.
type pendingAck struct {
	m    jetstream.Msg
	futs []jetstream.PubAckFuture
}

// ackStored is the acker of steal-wq and central-ledger: it acknowledges
// each job from acks once its writes are stored, in the order they came,
// and counts it in done (and calls onDone, when set). A job whose writes
// failed is left unacknowledged: it is delivered again after AckWait.
func ackStored(ctx context.Context, acks <-chan pendingAck, done *atomic.Int64, onDone func()) {
	for {
		var d pendingAck
		select {
		case d = <-acks:
		case <-ctx.Done():
			return
		}
		if allStored(ctx, d.futs) && d.m.Ack() == nil {
			done.Add(1)
			if onDone != nil {
				onDone()
			}
		}
	}
}

// allStored reports whether the server stored every write of futs, within
// fetchWait in all; a create-only completion refused because the ledger
// holds one for the job already counts as stored (a run again after a
// redelivery).
func allStored(ctx context.Context, futs []jetstream.PubAckFuture) bool {
	if len(futs) == 0 {
		return true
	}
	limit := time.NewTimer(fetchWait)
	defer limit.Stop()
	for _, f := range futs {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			var ae *jetstream.APIError
			if !errors.As(err, &ae) || ae.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence {
				return false
			}
		case <-limit.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// awaitAcks waits for the server's answer to every publish of futs and
// returns the first error, or ctx's: how the designs' batch submissions
// learn that a call's jobs are stored.
func awaitAcks(ctx context.Context, futs []jetstream.PubAckFuture) error {
	for _, f := range futs {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

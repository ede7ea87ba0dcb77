package cluster

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// flakyWorkersKV is the workers bucket of a server in trouble: while on,
// a renewal is refused as if the revision it names were stale (the ack of
// the one before was lost), and the read that would settle whether the
// lease is still ours times out, as during a leader election.
type flakyWorkersKV struct {
	jetstream.KeyValue
	on               atomic.Bool
	refused, unknown atomic.Int64
}

func (f *flakyWorkersKV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	if f.on.Load() {
		f.refused.Add(1)
		return 0, jetstream.ErrKeyRevisionMismatch
	}
	return f.KeyValue.Update(ctx, key, value, rev)
}

func (f *flakyWorkersKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if f.on.Load() {
		f.unknown.Add(1)
		return nil, context.DeadlineExceeded
	}
	return f.KeyValue.Get(ctx, key)
}

// TestLeaseReadFailureDoesNotFence: a renewal refused for a stale revision
// followed by a failed read of the lease proves nothing either way, so the
// worker waits for the next tick instead of fencing itself (dropping its
// deque and registering again). Its lease is still live all along: a fence
// here would be for nothing.
func TestLeaseReadFailureDoesNotFence(t *testing.T) {
	h := newHarness(t)
	kv := new(flakyWorkersKV)
	wrap := func(c *config) {
		c.wrapWorkers = func(real jetstream.KeyValue) jetstream.KeyValue {
			kv.KeyValue = real
			return kv
		}
	}
	w := h.worker("w1", func(*Worker) {}, WithLease(3*time.Second), wrap)
	h.ready("w1")

	kv.on.Store(true)
	// Renewals come every lease/4 = 750 ms: wait for two of them, well
	// inside the 3 s lease.
	waitFor(t, 5*time.Second, "two refused renewals", func() bool { return kv.refused.Load() >= 2 })
	kv.on.Store(false)
	if kv.unknown.Load() == 0 {
		t.Fatal("no read of the lease failed: the test did not exercise its case")
	}
	if n := w.stats.fenced.Load(); n != 0 {
		t.Fatalf("the worker fenced itself %d times on a lease it still held", n)
	}
	// With the server well again, the next renewal's read finds the lease
	// ours and the worker carries on.
	before := kv.refused.Load()
	time.Sleep(2 * time.Second)
	if kv.refused.Load() != before || w.stats.fenced.Load() != 0 {
		t.Fatalf("after recovery: refused %d more, fenced %d", kv.refused.Load()-before, w.stats.fenced.Load())
	}
	h.ready("w1")
}

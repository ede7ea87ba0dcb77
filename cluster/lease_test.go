package cluster

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestFenceKeepsRunningJob: a worker that fences itself (its lease lost,
// its records not taken over) reloads the records under its name, among
// them the record of the job it is still running. Queued again, root would
// run twice at once: its first run spawns root-0 after the fence, the
// second run's Spawn of root-0 is skipped (the id is held), the second run
// completes first and the first run's completion is refused, which leaves
// root-0 fenced on a deleted record: its completion, which must write the
// record of its pending child, is refused, and root-0 is lost. The reload
// must leave a running job alone: every job runs and completes once.
func TestFenceKeepsRunningJob(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(4), WithStealMode(StealOff))
	g1, g2, gRerun := make(chan struct{}), make(chan struct{}), make(chan struct{})
	gK, gK0 := make(chan struct{}), make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch {
		case j.ID == "root" && h.runCount("root") == 1:
			gate(ctx, g1)
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			gate(ctx, g2)
		case j.ID == "root": // a second run, if the reload queued one
			gate(ctx, gRerun)
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		case j.ID == "root-0":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			gate(ctx, gK)
		case j.ID == "root-0-0":
			gate(ctx, gK0)
		}
		return []byte(j.Worker()), nil
	}
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", handler) })
	h.ready("w1")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "root", "job", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to run", func() bool { return h.runCount("root") == 1 })
	if err := h.client.st.workers.Delete(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "w1 to fence itself", func() bool { return w1.Stats().Fenced >= 1 })
	// Give the reload time to deliver root's record (a free slot would
	// start a second run at once).
	for i := 0; i < 100 && h.runCount("root") < 2; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	close(g1)
	waitFor(t, 10*time.Second, "root-0 and root-0-0 to run", func() bool { return h.runCount("root-0-0") == 1 })
	close(gRerun)
	waitFor(t, 10*time.Second, "a second run of root to complete, if there is one", func() bool {
		return h.count("d.root") == 1 || h.runCount("root") == 1
	})
	close(g2)
	close(gK) // root-0 completes while its child still runs
	waitFor(t, 10*time.Second, "root-0's completion to be written or refused", func() bool {
		return h.count("d.root-0") == 1 || w1.Stats().Refused >= 1
	})
	close(gK0)
	for _, id := range []string{"root", "root-0", "root-0-0"} {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := h.client.Wait(wctx, id)
		cancel()
		if err != nil {
			t.Fatalf("%s never completed (ran %d times): %v", id, h.runCount(id), err)
		}
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
	checkQuiet(t, h, 3)
}

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

// TestSupersededStopsServing: a worker cut off past its lease (as a
// process paused with SIGSTOP is) finds, when it is heard again, that a
// new worker of the same name registered meanwhile. It must stop serving
// at once: no subscription, no watch, no job; Err says why and Done is
// closed. Jobs submitted to the name run once, on the new worker, and none
// is refused as a duplicate.
func TestSupersededStopsServing(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithStealMode(StealOff))
	p := newProxy(t, hostPort(h.e.URL()))
	job := func(name string) func(*Worker) {
		return func(w *Worker) {
			w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
				h.ran(j.ID + "@" + name)
				return []byte(name), nil
			})
		}
	}
	old := h.workerOn(tcpConn(t, p.url()), "x1", job("old"))
	h.ready("x1")
	p.blackhole(true, true)
	waitFor(t, 10*time.Second, "x1's lease to expire", func() bool { return !h.leaseHeld("x1") })
	h.worker("x1", job("new"))
	h.ready("x1")
	p.heal()
	select {
	case <-old.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the superseded worker still serves 10 s after it was heard again")
	}
	if err := old.Err(); !errors.Is(err, ErrSuperseded) {
		t.Fatalf("Err = %v, want ErrSuperseded", err)
	}
	const n = 20
	ids := submitTo(t, h, "s", n, "x1")
	for _, id := range ids {
		if r := h.wait(id); r.Err != nil || string(r.Value) != "new" {
			t.Errorf("%s: value %q, err %v; want it run by the new x1", id, r.Value, r.Err)
		}
	}
	for _, id := range ids {
		if o, nw := h.runCount(id+"@old"), h.runCount(id+"@new"); o != 0 || nw != 1 {
			t.Errorf("%s ran %d times on the old x1 and %d on the new, want 0 and 1", id, o, nw)
		}
	}
	if err := old.Close(); err != nil {
		t.Errorf("Close of the superseded worker: %v", err)
	}
}

// controlRate runs w workers (lease 1 s) on a server of their own and
// returns the messages into and out of the server per second per worker,
// over window, once they have settled: what leases, membership, hints and
// thieves cost; the lowest of as many such windows one after the other,
// so that a burst of the machine's load in one does not count. Idle, nothing is submitted. Busy, each worker runs one
// job that waits for the end of the test and holds two more queued
// (stealing off, so that every worker keeps a surplus and hints it
// every lease/4).
func controlRate(t *testing.T, workers int, window time.Duration, windows int, busy bool) float64 {
	h := newHarness(t, WithLease(time.Second))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the workers close: cleanups run in reverse
	var names []string
	for i := range workers {
		name := "w" + strconv.Itoa(i)
		names = append(names, name)
		h.worker(name, func(w *Worker) {
			w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return nil, nil
			})
		}, WithStealMode(StealOff))
	}
	h.ready(names...)
	if busy {
		for _, n := range names {
			submitTo(t, h, n+"-", 3, n)
		}
	}
	time.Sleep(time.Second) // past start-up: registrations, scans, first beats
	count := func() int64 {
		v, err := h.e.NATS().Varz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return v.InMsgs + v.OutMsgs
	}
	lowest := math.Inf(1)
	for range windows {
		before, t0 := count(), time.Now()
		time.Sleep(window)
		n, d := count()-before, time.Since(t0)
		lowest = min(lowest, float64(n)/d.Seconds()/float64(workers))
	}
	return lowest
}

// TestIdleControlTraffic: idle control traffic (lease renewals, membership,
// idle thieves) costs each worker about the same number of server messages
// per second at W=4 as at W=32: O(W) in all, not O(W²). Each window is
// longer than 4 leases, so that it holds a read of the workers bucket by
// every worker that reads it every 4 leases: such reads deliver every
// lease, W messages each (TestIdleControlTraffic once measured 3 s, and
// missed them; with each worker reading every 4 leases it measures about
// 20 at W=4 and 28 at W=32).
func TestIdleControlTraffic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 36 workers for several seconds")
	}
	const window = 4200 * time.Millisecond
	small := controlRate(t, 4, window, 1, false)
	large := controlRate(t, 32, window, 2, false)
	t.Logf("idle server messages per second per worker (lease 1 s): W=4 %.1f, W=32 %.1f", small, large)
	if large > 1.25*small {
		t.Errorf("per-worker idle traffic grows with W: %.1f/s at W=32 against %.1f/s at W=4", large, small)
	}
}

// TestBusyControlTraffic: with every worker holding jobs beyond its slots,
// each hints its surplus every lease/4; a hint reaches a few workers, not
// all, so that each worker costs about the same number of server messages
// per second at W=4 as at W=32 (a hint to every worker makes it grow as W).
func TestBusyControlTraffic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 36 workers for several seconds")
	}
	const window = 2 * time.Second
	small := controlRate(t, 4, window, 1, true)
	large := controlRate(t, 32, window, 1, true)
	t.Logf("busy server messages per second per worker (lease 1 s): W=4 %.1f, W=32 %.1f", small, large)
	if large > 1.5*small {
		t.Errorf("per-worker control traffic grows with W: %.1f/s at W=32 against %.1f/s at W=4", large, small)
	}
}

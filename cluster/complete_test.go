package cluster

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/worksteal/steal/cluster/natsserver"
)

// TestCompletionRetryAckLost: a job completes with more children pending
// than one batch holds, so their records go first in batches conditional
// on the job's record, which those batches do not change. The answer to
// the first batch is lost (held back past the request timeout) while the
// batch reaches the servers, so the commit tries again. Were the retry
// applied, it would write the children's records a second time, at new
// revisions: P-0, still running, would be queued again as a second job,
// its first run's completion refused, and P-0-0 (fenced on the first
// revision, its child pending) refused and lost, the second run's Spawn of
// its id skipped. The retry must be refused, and every job run once.
func TestCompletionRetryAckLost(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a batch's answer back for 1.5 s")
	}
	const kids = 300 // more than one batch holds (maxStealJobs)
	h := newHarness(t, WithLease(3*time.Second), WithRequestTimeout(time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	gP, gK, gK0, gK00 := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch {
		case j.ID == "P":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			for i := 0; i < 1000 && h.runCount("P-0") == 0; i++ { // P-0 takes the next slot
				time.Sleep(10 * time.Millisecond)
			}
			for range kids - 1 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			gate(ctx, gP)
		case j.ID == "P-0" && h.runCount("P-0") == 1:
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			gate(ctx, gK)
		case j.ID == "P-0": // a second run, if a retry wrote its record again
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		case j.ID == "P-0-0":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			gate(ctx, gK0)
		case j.ID == "P-0-0-0":
			gate(ctx, gK00)
		}
		return nil, nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) }, WithSlots(3))
	h.ready("w1")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "P", "job", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "P to spawn its children, P-0 and P-0-0 to run", func() bool {
		return h.runCount("P-0-0") == 1 && w1.Queued() >= kids-1
	})
	// Hold w1's outgoing bytes, let P complete, and once its first batch of
	// children's records is on its way, let it through while its answer is
	// held.
	pv.blackhole(true, false)
	close(gP)
	waitFor(t, 10*time.Second, "P's completion to claim its children", func() bool {
		w1.mu.Lock()
		defer w1.mu.Unlock()
		k := w1.locals["P-1"]
		return k != nil && k.flying == flightKid
	})
	pv.loseAnswers()
	time.Sleep(1500 * time.Millisecond) // past the request timeout: the commit retries
	pv.heal()
	waitFor(t, 20*time.Second, "P and its leaf children to complete", func() bool { return h.count("d.>") >= kids })
	for i := 0; i < 100 && h.runCount("P-0") < 2; i++ { // a second run of P-0, if queued, completes
		time.Sleep(10 * time.Millisecond)
	}
	waitFor(t, 10*time.Second, "a second run of P-0 to complete, if there is one", func() bool {
		return h.count("d.P-0") == 1 || h.runCount("P-0") == 1
	})
	close(gK)
	waitFor(t, 10*time.Second, "P-0 to complete", func() bool { return h.count("d.P-0") == 1 })
	close(gK0) // P-0-0 completes while its child still runs
	waitFor(t, 10*time.Second, "P-0-0's completion to be written or refused", func() bool {
		return h.count("d.P-0-0") == 1 || w1.Stats().Refused >= 1
	})
	close(gK00)
	ids := []string{"P", "P-0", "P-0-0", "P-0-0-0"}
	for i := 1; i < kids; i++ {
		ids = append(ids, "P-"+strconv.Itoa(i))
	}
	for _, id := range ids {
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
	checkQuiet(t, h, len(ids))
}

// TestManyConcurrentCompletions: more completions at once than the server
// takes atomic batches in flight on a stream. The limit is 50 by default
// (streamDefaultMaxAtomicBatchInflightPerStream, server/stream.go); here
// the server is started with 1 (JetStreamLimits.MaxBatchInflightPerStream)
// so that 120 completions at once overflow it on any machine: half of them
// flat jobs, whose batches (delete the record, write the completion) stay
// open between their two messages, and half children that complete while
// their parent runs, with one-message batches that the server refuses with
// 10210 while another batch is open (processJetStreamAtomicBatchMsg,
// server/stream.go). Every job runs once and completes without error: the
// refusal is retried, not taken for a failure that runs the job again.
func TestManyConcurrentCompletions(t *testing.T) {
	const workers, kids, flat = 4, 15, 15
	e, err := natsserver.Start(natsserver.StoreDir(t.TempDir()), natsserver.ServerOptions(func(o *server.Options) {
		o.JetStreamLimits.MaxBatchInflightPerStream = 1
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	h := newHarnessOn(t, e, WithLease(2*time.Second), WithSlots(1+kids+flat), WithStealMode(StealOff))
	var started, finished atomic.Int64
	gate := make(chan struct{})
	for i := range workers {
		h.worker("w"+strconv.Itoa(i), func(w *Worker) {
			w.Handle("root", func(ctx context.Context, j *Job) ([]byte, error) {
				h.ran(j.ID)
				for range kids {
					if _, err := j.Spawn(ctx, "kid", nil); err != nil {
						return nil, err
					}
				}
				// Returns once its children completed: theirs are the
				// one-message batches of jobs without a record.
				for end := time.Now().Add(20 * time.Second); finished.Load() < workers*(kids+flat) && time.Now().Before(end); {
					time.Sleep(time.Millisecond)
				}
				return []byte("ok"), nil
			})
			w.Handle("kid", func(ctx context.Context, j *Job) ([]byte, error) {
				h.ran(j.ID)
				if started.Add(1) == workers*(kids+flat) {
					close(gate)
				}
				select { // every child returns at once
				case <-gate:
				case <-time.After(20 * time.Second):
				}
				defer finished.Add(1)
				return []byte("ok"), nil
			})
		})
	}
	var ids []string
	for i := range workers {
		id := "r" + strconv.Itoa(i)
		if err := h.client.Submit(context.Background(), id, "root", nil, To("w"+strconv.Itoa(i))); err != nil {
			t.Fatalf("submit %s: %v", id, err)
		}
		ids = append(ids, id)
		for k := range kids {
			ids = append(ids, id+"-"+strconv.Itoa(k))
		}
		for k := range flat {
			id := "f" + strconv.Itoa(i) + "-" + strconv.Itoa(k)
			if err := h.client.Submit(context.Background(), id, "kid", nil, To("w"+strconv.Itoa(i))); err != nil {
				t.Fatalf("submit %s: %v", id, err)
			}
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		if r := h.wait(id); r.Err != nil {
			t.Errorf("%s: %v", id, r.Err)
		}
	}
	for _, id := range ids {
		if c := h.runCount(id); c != 1 {
			t.Errorf("%s ran %d times, want 1", id, c)
		}
	}
	if got := started.Load(); got != workers*(kids+flat) {
		t.Errorf("%d runs of children and flat jobs, want %d", got, workers*(kids+flat))
	}
}

// TestDeleteMarkersExpire: on memory storage, where a batch's deletes
// carry their expiry themselves, the jobs stream holds the ledger alone
// once the jobs completed and a second passed: no delete marker stays.
func TestDeleteMarkersExpire(t *testing.T) {
	const n = 20
	h := newHarness(t, WithLease(time.Second))
	job := func(w *Worker) { w.Handle("job", h.sleeper(0)) }
	h.worker("w1", job)
	h.worker("w2", job)
	h.ready("w1", "w2")
	ids := append(submitTo(t, h, "a", n/2, "w1"), submitTo(t, h, "b", n/2, "w2")...)
	for _, id := range ids {
		h.wait(id)
	}
	if !h.client.st.ttlInBatch {
		t.Fatal("a memory stream on one server should take deletes with their expiry in the batch")
	}
	waitFor(t, 10*time.Second, "the jobs stream to hold the ledger only", func() bool {
		str, err := h.client.st.js.Stream(context.Background(), "KV_"+h.client.st.cfg.jobsBucket())
		return err == nil && str.CachedInfo().State.Msgs == n
	})
}

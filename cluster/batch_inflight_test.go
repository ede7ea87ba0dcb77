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

// TestManyConcurrentCompletions: more completions at once than the server
// takes atomic batches in flight on a stream. The limit is 50 by default
// (streamDefaultMaxAtomicBatchInflightPerStream, server/stream.go); here
// the server is started with 2 (JetStreamLimits.MaxBatchInflightPerStream)
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

package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestCompletedCountsOwnOnly: Stats.Completed counts the completions this
// worker recorded, not another run's that reads the same. The ledger is
// given, before the job completes here, the completion another run of it
// on a worker of the same name would write (a run of this worker before
// it fenced itself, say): same worker, attempt, hops and code. Two cases:
// a child held in memory, whose completion is refused as already done;
// and a job with a record, whose record is then found gone.
func TestCompletedCountsOwnOnly(t *testing.T) {
	h := newHarness(t, WithLease(3*time.Second), WithStealMode(StealOff))
	release := make(chan struct{})
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			if j.ID == "root" {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			gate(ctx, release)
			return nil, nil
		})
	}, WithSlots(3))
	h.ready("w1")
	ctx := context.Background()
	for _, id := range []string{"root", "x"} {
		if err := h.client.Submit(ctx, id, "job", nil, To("w1")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "root, root-0 and x to run", func() bool {
		return h.runCount("root") == 1 && h.runCount("root-0") == 1 && h.runCount("x") == 1
	})
	for _, id := range []string{"root-0", "x"} {
		other, _ := json.Marshal(&outcome{ID: id, Type: "job", Worker: "w1"})
		if _, err := h.client.st.jobs.Create(ctx, dKey(id), other); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.client.st.jobs.Delete(ctx, qKey("w1", "x")); err != nil {
		t.Fatal(err)
	}
	close(release)
	waitFor(t, 10*time.Second, "the three completions to be answered", func() bool {
		s := w1.Stats()
		return s.Completed+s.Duplicates+s.Refused >= 3
	})
	want := WorkerStats{Completed: 1, Duplicates: 1, Refused: 1}
	if s := w1.Stats(); s != want {
		t.Fatalf("stats %+v, want %+v: only root's completion is this worker's", s, want)
	}
	checkQuiet(t, h, 3)
	for _, id := range []string{"root", "root-0", "x"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
}

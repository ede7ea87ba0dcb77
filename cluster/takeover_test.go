package cluster

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// TestTakeoverKeepsHeldRecord: a worker takes over a dead worker's
// record of a job it already holds a record of (the same id, queued twice
// by a submission repeated outside the servers' duplicate window, say),
// while it runs that job. The takeover must not write over its own record:
// the running job would lose it, its completion be refused, and the job
// run a second time from the takeover's record. The dead worker's copy is
// retired instead; the job runs and completes once.
func TestTakeoverKeepsHeldRecord(t *testing.T) {
	h := newHarness(t, WithLease(3*time.Second), WithStealMode(StealOff))
	release := make(chan struct{})
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			gate(ctx, release)
			return nil, nil
		})
	}, WithSlots(2))
	h.ready("w1")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "x", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "x to run", func() bool { return h.runCount("x") == 1 })
	dup, _ := json.Marshal(&record{ID: "x", Type: "job"})
	if _, err := h.client.st.jobs.Put(ctx, qKey("ghost", "x"), dup); err != nil {
		t.Fatal(err)
	}
	poke(w1.scan) // ghost holds no lease: its record is an orphan
	waitFor(t, 10*time.Second, "the orphan to be taken over", func() bool { return h.count("q.ghost.>") == 0 })
	close(release)
	checkQuiet(t, h, 1)
	if n := h.runCount("x"); n != 1 {
		t.Errorf("x ran %d times, want once", n)
	}
	if s := w1.Stats(); s.Completed != 1 || s.Refused != 0 || s.TakenOver != 0 {
		t.Errorf("stats %+v, want one completion, none refused, nothing moved in", s)
	}
}

// TestHintDoesNotMakeMember: a hint names a worker, it does not make one.
// A hint from a name that holds no lease (here published by hand: a
// forged or late hint) must not enter the view that decides which worker
// sorts first and whose records are orphans, else one hint from "0"
// stopped every orphan scan, and one from a dead worker's name hid its
// records, for as long as a monitor's watch lasts: the dead worker's jobs
// never ran.
func TestHintDoesNotMakeMember(t *testing.T) {
	for _, name := range []string{"0", "dead"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, WithLease(time.Second))
			h.worker("a", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
			h.ready("a")
			time.Sleep(500 * time.Millisecond) // "a" watches the workers bucket by now
			b, _ := json.Marshal(hint{Name: name, Queue: 0})
			nc := h.conn()
			if err := nc.Publish(h.client.cfg.subject("hint"), b); err != nil {
				t.Fatal(err)
			}
			nc.Flush()
			h.ready("a") // the hint, sent before, was taken in
			// A record under the name of a worker that holds no lease:
			// a dead worker's job, for the orphan scan to take over.
			data, _ := json.Marshal(record{ID: "orphan", Type: "job"})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := h.client.st.put(ctx, qKey("dead", "orphan"), data, "orphan", dKey("orphan"), 0); err != nil {
				t.Fatal(err)
			}
			h.wait("orphan") // the scan runs every 4 leases
		})
	}
}

// TestHintFloodBounded: hints from many names that hold no lease (sent by
// hand) do not grow a worker's view without bound.
func TestHintFloodBounded(t *testing.T) {
	h := newHarness(t)
	w := h.worker("a", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	h.ready("a")
	nc := h.conn()
	for i := range 3 * maxHinted {
		b, _ := json.Marshal(hint{Name: "ghost" + strconv.Itoa(i), Queue: 1})
		nc.Publish(h.client.cfg.subject("hint"), b)
	}
	nc.Flush()
	h.ready("a") // the hints, sent before, were taken in
	w.members.mu.Lock()
	n := len(w.members.m)
	w.members.mu.Unlock()
	if n > maxHinted+1 {
		t.Errorf("the view holds %d names after %d hints, want at most %d", n, 3*maxHinted, maxHinted+1)
	}
}

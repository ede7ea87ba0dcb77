package cluster

import (
	"context"
	"testing"
	"time"
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

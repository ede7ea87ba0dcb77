package cluster

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// putRecord writes a job record under key directly, as a server restart
// that lost its delete leaves it.
func putRecord(t *testing.T, h *harness, key, id string) {
	t.Helper()
	if _, err := h.client.st.jobs.Put(context.Background(), key, []byte(`{"id":"`+id+`","type":"job"}`)); err != nil {
		t.Fatal(err)
	}
}

// idleWithin fails the test unless the cluster is idle within 10 s.
func (h *harness) idleWithin(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.client.WaitIdle(ctx); err != nil {
		keys, _ := h.client.st.keys(context.Background(), "q.>")
		t.Fatalf("cluster not idle: %v (records live: %v)", err, keys)
	}
}

// TestLetGoRecordNotLeft: a live record under a live worker's name at a
// revision the worker let go of (as a server killed and restarted leaves
// the record of a job the worker completed) is not skipped and left for
// ever, which kept the cluster from ever being idle. The record of a
// completed job is deleted without running the job again; that of a job
// not completed is taken back and run.
func TestLetGoRecordNotLeft(t *testing.T) {
	h := newHarness(t, WithLease(time.Second))
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	h.ready("w1")
	submitTo(t, h, "x", 1, "w1")
	h.wait("x0")
	// A record comes back long after its job settled (a server restart):
	// wait until w1 has let go of x0.
	waitFor(t, 10*time.Second, "w1 to let go of x0", func() bool {
		w1.mu.Lock()
		defer w1.mu.Unlock()
		_, held := w1.known["x0"]
		return !held && w1.runs["x0"] == nil && w1.retiredLocked("x0")
	})
	w1.mu.Lock() // every revision of these ids counts as let go
	w1.retireLocked("x0", 1<<62)
	w1.retireLocked("y0", 1<<62)
	w1.mu.Unlock()
	putRecord(t, h, "q.w1.x0", "x0")
	putRecord(t, h, "q.w1.y0", "y0")
	if r := h.wait("y0"); r.Worker != "w1" || r.Err != nil {
		t.Errorf("y0: recorded by %q, err %v; want w1, nil", r.Worker, r.Err)
	}
	h.idleWithin(t)
	if n := h.count("q.>"); n != 0 {
		t.Errorf("%d records live, want 0", n)
	}
	for id, want := range map[string]int{"x0": 1, "y0": 1} {
		if c := h.runCount(id); c != want {
			t.Errorf("%s ran %d times, want %d", id, c, want)
		}
	}
}

// TestStartSkipsCompletedRecord: a worker that starts with a record under
// its name of a job the ledger holds as completed deletes the record and
// does not run the job again.
func TestStartSkipsCompletedRecord(t *testing.T) {
	h := newHarness(t, WithLease(time.Second))
	job := func(w *Worker) { w.Handle("job", h.sleeper(0)) }
	w1 := h.worker("w1", job)
	h.ready("w1")
	submitTo(t, h, "x", 1, "w1")
	h.wait("x0")
	putRecord(t, h, "q.w2.x0", "x0")
	w2 := h.worker("w2", job)
	h.idleWithin(t)
	if c := h.runCount("x0"); c != 1 {
		t.Errorf("x0 ran %d times, want 1", c)
	}
	// w2 loads the record at its start, or w1 takes it over first (w2
	// held no lease when it was written): either deletes it.
	if d := w1.Stats().Duplicates + w2.Stats().Duplicates; d != 1 {
		t.Errorf("w1 and w2 counted %d duplicates, want 1", d)
	}
}

// TestMovedCheckedRecordNotRun: a record that its worker loaded at its
// start (to be checked against the ledger before it runs), moved by
// Client.Steal before that check, carries the check to the thief, whose
// watch of its own records delivers it: the thief deletes the record of
// the completed job and does not run it again.
func TestMovedCheckedRecordNotRun(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	release := make(chan struct{})
	defer close(release)
	register := func(w *Worker) {
		w.Handle("block", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		})
		w.Handle("job", h.sleeper(0))
	}
	// As a server restart leaves them: the record of a job that runs
	// first and holds w1's only slot, then the record of x, whose
	// completion the ledger holds.
	if _, err := h.client.st.jobs.Put(ctx, "q.w1.a", []byte(`{"id":"a","type":"block"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.st.jobs.Put(ctx, dKey("x"), []byte(`{"id":"x","worker":"old"}`)); err != nil {
		t.Fatal(err)
	}
	putRecord(t, h, "q.w1.x", "x")
	w1 := h.worker("w1", register, WithSlots(1), WithStealMode(StealOff))
	waitFor(t, 10*time.Second, "a to run and w1 to queue x", func() bool {
		w1.mu.Lock()
		_, held := w1.known["x"]
		w1.mu.Unlock()
		return h.runCount("a") == 1 && held
	})
	w2 := h.worker("w2", register, WithStealMode(StealOff))
	h.ready("w1", "w2")
	res, err := h.client.Steal(ctx, "w2", "w1", 0)
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0] != "x" {
		t.Fatalf("Steal: %+v, %v; want x moved", res, err)
	}
	waitFor(t, 10*time.Second, "the record of x to go", func() bool { return h.count("q.w2.>") == 0 })
	time.Sleep(100 * time.Millisecond) // a run would have counted by now
	if c := h.runCount("x"); c != 0 {
		t.Errorf("x, completed before, ran %d times on the thief, want 0", c)
	}
	if d := w2.Stats().Duplicates; d != 1 {
		t.Errorf("w2 counted %d duplicates, want 1", d)
	}
}

// TestTakenOverCompletedNotRun: records of completed jobs left under a
// worker that holds no lease (as a server restart leaves them) are taken
// over and deleted, none run again, whichever of the takeover's answer and
// its watch echo reaches the taking worker first.
func TestTakenOverCompletedNotRun(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	const n = 200
	for i := range n {
		id := "x" + strconv.Itoa(i)
		if _, err := h.client.st.jobs.Put(ctx, dKey(id), []byte(`{"id":"`+id+`","worker":"old"}`)); err != nil {
			t.Fatal(err)
		}
		putRecord(t, h, "q.ghost."+id, id)
	}
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) }, WithSlots(4))
	waitFor(t, 20*time.Second, "the records to go", func() bool { return h.count("q.>") == 0 })
	h.idleWithin(t)
	ran := 0
	for i := range n {
		ran += h.runCount("x" + strconv.Itoa(i))
	}
	if ran != 0 {
		t.Errorf("%d of %d completed jobs ran again after a takeover", ran, n)
	}
	t.Logf("stats %+v", w1.Stats())
}

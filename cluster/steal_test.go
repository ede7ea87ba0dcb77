package cluster

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestStealRetryAckLost: the answer to a victim's steal batch of a job
// held without a record is lost (held back past the victim's request
// timeout) while the batch itself reaches the servers, so the victim's
// commit tries again. The job's put is conditional on its anchor's record,
// which the batch does not change: were the retry applied, it would write
// the thief's record a second time, at a new revision, and the thief would
// run the job twice. The first run's child, fenced on the first revision,
// would then be refused when it completes with a child of its own pending,
// while the second run's Spawn of the same id is skipped (the id is held):
// root-0-0 would never complete. The retry must be refused instead, and
// every job run and complete once.
func TestStealRetryAckLost(t *testing.T) {
	h := newHarness(t, WithLease(3*time.Second), WithRequestTimeout(time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	releaseRoot, releaseX := make(chan struct{}), make(chan struct{})
	releaseK, releaseK0 := make(chan struct{}), make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch j.ID {
		case "root", "root-0", "root-0-0":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		}
		switch {
		case j.ID == "root":
			gate(ctx, releaseRoot)
		case j.ID == "root-0" && h.runCount("root-0") == 1:
			gate(ctx, releaseX)
		case j.ID == "root-0-0":
			gate(ctx, releaseK)
		case j.ID == "root-0-0-0":
			gate(ctx, releaseK0)
		}
		return []byte(j.Worker()), nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) }, WithSlots(1))
	w2 := h.worker("w2", func(w *Worker) { w.Handle("job", handler) }, WithSlots(3))
	h.ready("w1", "w2")
	stealChildAnswerLost(t, h, pv, w1)
	waitFor(t, 10*time.Second, "root-0, its child and grandchild to run on w2", func() bool {
		return h.runCount("root-0-0-0") == 1
	})
	time.Sleep(1500 * time.Millisecond) // past w1's request timeout: its commit retries
	pv.heal()
	waitFor(t, 10*time.Second, "w1's steal to settle", func() bool { return movingOf(w1) == 0 })

	close(releaseX)
	waitFor(t, 10*time.Second, "root-0 to complete", func() bool { return h.count("d.root-0") == 1 })
	close(releaseK) // root-0-0 completes while its child still runs
	waitFor(t, 10*time.Second, "root-0-0's completion to be written or refused", func() bool {
		return h.count("d.root-0-0") == 1 || w2.Stats().Refused == 2
	})
	close(releaseK0)
	close(releaseRoot)
	for _, id := range []string{"root", "root-0", "root-0-0", "root-0-0-0"} {
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := h.client.Wait(wctx, id)
		cancel()
		if err != nil {
			t.Fatalf("%s never completed (ran %d times): %v", id, h.runCount(id), err)
		}
	}
	for _, id := range []string{"root", "root-0", "root-0-0", "root-0-0-0"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
	checkQuiet(t, h, 4)
}

// TestStealCountAckLost: Client.Steal reports the jobs a steal moved when
// the victim's answer from the servers was lost and its retry found the
// move applied (refused as a duplicate): the reply then carries no
// revisions, but the jobs did move. With jobs held in memory among those
// moved and without.
func TestStealCountAckLost(t *testing.T) {
	for _, spawn := range []bool{true, false} {
		t.Run("spawn="+strconv.FormatBool(spawn), func(t *testing.T) { stealCountAckLost(t, spawn) })
	}
}

func stealCountAckLost(t *testing.T, spawn bool) {
	// The client waits longer than the victim's request timeout, so that
	// the victim's retry answers it.
	h := newHarness(t, WithLease(3*time.Second), WithRequestTimeout(5*time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" && string(j.Payload) == "spawn" {
			for range 2 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
		}
		gate(ctx, release)
		return nil, nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) },
		WithSlots(1), WithRequestTimeout(time.Second))
	h.worker("w2", func(w *Worker) { w.Handle("job", handler) }, WithSlots(3))
	h.ready("w1", "w2")
	ctx := context.Background()
	ids := []string{"root"}
	payload, subs := []byte(nil), 3
	if spawn {
		payload, subs = []byte("spawn"), 1
		ids = append(ids, "root-0", "root-1")
	}
	if err := h.client.Submit(ctx, "root", "job", payload, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to run and spawn", func() bool {
		return h.runCount("root") == 1 && w1.Queued() == len(ids)-1
	})
	ids = append(ids, submitTo(t, h, "s", subs, "w1")...)

	// Hold w1's outgoing bytes, ask for the steal (two of its three
	// queued jobs), and once w1 has popped them let its batch through
	// while the batch's answer is held past w1's request timeout.
	pv.blackhole(true, false)
	type answer struct {
		res StealResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := h.client.Steal(ctx, "w2", "w1", 0)
		got <- answer{res, err}
	}()
	waitFor(t, 10*time.Second, "w1 to pop two jobs for the thief", func() bool { return movingOf(w1) == 2 })
	pv.loseAnswers()
	time.Sleep(1500 * time.Millisecond) // past w1's request timeout: its commit retries
	pv.heal()
	var a answer
	select {
	case a = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("Steal did not return")
	}
	want := []string{"s2", "s1"} // from the back
	if spawn {
		want = []string{"s0", "root-0"}
	}
	if a.err != nil || !slices.Equal(a.res.Jobs, want) || a.res.VictimQueue != 1 {
		t.Errorf("Steal: %+v, %v; want jobs %v moved, 1 left", a.res, a.err, want)
	}
	close(release)
	checkQuiet(t, h, len(ids))
	for _, id := range ids {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
	if n := h.count("q.w2.>"); n != 0 {
		t.Errorf("%d records left on w2", n)
	}
}

// withRetryWindow shortens how long the store's writes are retried, so
// that a test can outlast it.
func withRetryWindow(d time.Duration) Option { return func(c *config) { c.retry = d } }

// TestStealOutcomeUnknown: a victim's steal batch of a job held without a
// record reaches the servers, but every answer to it is lost for longer
// than the victim retries its writes through transient errors. The move
// happened: the thief runs the job from the record the batch wrote. The
// victim, which cannot tell, must not keep the job as well (its parent's
// completion would write it a second record, and it would run twice): it
// asks again with the same batch until the servers answer, and their
// answer, a duplicate, says the move was applied.
func TestStealOutcomeUnknown(t *testing.T) {
	if testing.Short() {
		t.Skip("holds a victim's answers back for 3.5 s")
	}
	h := newHarness(t, WithLease(10*time.Second), WithRequestTimeout(time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" {
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		}
		gate(ctx, release)
		return nil, nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) },
		WithSlots(1), withRetryWindow(2*time.Second))
	h.worker("w2", func(w *Worker) { w.Handle("job", handler) }, WithSlots(2))
	h.ready("w1", "w2")
	stealChildAnswerLost(t, h, pv, w1)
	waitFor(t, 10*time.Second, "root-0 to run on w2", func() bool { return h.runCount("root-0") == 1 })
	time.Sleep(3500 * time.Millisecond) // past w1's retry window (2 s)
	pv.heal()
	waitFor(t, 20*time.Second, "w1's steal to settle", func() bool { return movingOf(w1) == 0 })
	close(release)
	checkQuiet(t, h, 2)
	for _, id := range []string{"root", "root-0"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
}

// stealChildAnswerLost submits root to w1 (one slot), waits until it runs
// and has spawned its one child, root-0, and has w2 steal root-0 with the
// answer to w1's batch lost: the batch reaches the servers through pv, and
// what the servers send back to w1 stays held until pv heals.
func stealChildAnswerLost(t *testing.T, h *harness, pv *proxy, w1 *Worker) {
	t.Helper()
	ctx := context.Background()
	if err := h.client.Submit(ctx, "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to run and spawn", func() bool {
		return h.runCount("root") == 1 && w1.Queued() == 1
	})
	pv.blackhole(true, false) // hold w1's outgoing bytes until it has popped root-0
	go h.client.Steal(ctx, "w2", "w1", 0)
	waitFor(t, 10*time.Second, "w1 to pop root-0 for the thief", func() bool { return movingOf(w1) == 1 })
	pv.loseAnswers()
}

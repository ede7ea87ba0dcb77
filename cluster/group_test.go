package cluster

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestGroupCommit: 64 jobs finish at once on one worker. Their completions
// go in a few atomic batches, not 64: the server messages of the
// completions (2 in per job, the batches' answers, and each delete's echo
// on the worker's watch) come to fewer than 3.5 a job, against 4 written
// one by one.
func TestGroupCommit(t *testing.T) {
	h, w, ids, release := groupRunning(t, 64)
	m0 := h.msgs()
	close(release)
	waitFor(t, 10*time.Second, "the completions", func() bool { return w.Stats().Completed == int64(len(ids)) })
	time.Sleep(200 * time.Millisecond) // the last echoes
	per := float64(h.msgs()-m0) / float64(len(ids))
	t.Logf("%.2f server messages per completion", per)
	if per > 3.5 {
		t.Errorf("%.2f server messages per completion, want at most 3.5", per)
	}
	checkQuiet(t, h, len(ids))
}

// TestGroupCommitRefusedMember: one of 64 jobs finishing at once had its
// record deleted under it (as a takeover would): its completion is
// refused, and the others, whose batch the servers refused with it, are
// recorded all the same.
func TestGroupCommitRefusedMember(t *testing.T) {
	h, w, ids, release := groupRunning(t, 64)
	e, err := h.client.st.get(context.Background(), qKey("w1", "g7"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.st.commit(context.Background(), []op{{key: qKey("w1", "g7"), del: true, check: true, expect: e.Revision()}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the delete's echo
	close(release)
	waitFor(t, 10*time.Second, "the completions", func() bool {
		s := w.Stats()
		return s.Completed+s.Refused == int64(len(ids))
	})
	if s := w.Stats(); s.Refused != 1 {
		t.Errorf("%d completions refused, want 1 (g7)", s.Refused)
	}
	if h.count("d.g7") != 0 {
		t.Error("g7's completion was recorded although its record was gone")
	}
	for _, id := range ids {
		if id != "g7" && h.count("d."+id) != 1 {
			t.Errorf("%s has no completion", id)
		}
	}
}

// groupRunning starts worker w1 with n slots and n jobs submitted to it,
// and returns once every one of them runs, held until release is closed.
func groupRunning(t *testing.T, n int) (h *harness, w *Worker, ids []string, release chan struct{}) {
	h = newHarness(t, WithStealMode(StealOff))
	release = make(chan struct{})
	w = h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			gate(ctx, release)
			return nil, nil
		})
	}, WithSlots(n))
	h.ready("w1")
	ids = submitTo(t, h, "g", n, "w1")
	waitFor(t, 10*time.Second, "every job to run", func() bool {
		for _, id := range ids {
			if h.runCount(id) == 0 {
				return false
			}
		}
		return true
	})
	return h, w, ids, release
}

// msgs is the server's count of messages in and out.
func (h *harness) msgs() int64 {
	v, err := h.e.NATS().Varz(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return v.InMsgs + v.OutMsgs
}

// TestGroupCommitHandsLead: 32 goroutines write 1920 completion-like
// batches through one worker's group without a pause, so the lead changes
// hands after groupRounds rounds; every write is applied once and every
// caller gets its answer.
func TestGroupCommitHandsLead(t *testing.T) {
	h := newHarness(t, WithStealMode(StealOff))
	w := h.worker("w1", func(w *Worker) {})
	const writers, each = 32, 60
	errs := make(chan error, writers*each)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				key := "x." + strconv.Itoa(g) + "." + strconv.Itoa(i)
				errs <- w.commitGrouped([]op{{key: key, value: []byte("v"), check: true, expect: 0}})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := h.count("x.>"); n != writers*each {
		t.Errorf("%d keys written, want %d", n, writers*each)
	}
	w.group.mu.Lock()
	handoffs := w.group.handoffs
	w.group.mu.Unlock()
	t.Logf("%d handoffs", handoffs)
	if handoffs == 0 {
		t.Error("the lead never changed hands")
	}
}

package cluster

import (
	"strconv"
	"testing"
	"time"
)

// TestDispatcherSleepsWhenIdle: a worker that does not steal, with nothing
// to run, sleeps until it is signalled: a few rounds of its dispatcher in
// half a second (the lease/4 safety net), not one per 100 µs. Then one
// job still runs at once.
func TestDispatcherSleepsWhenIdle(t *testing.T) {
	h := newHarness(t, WithStealMode(StealOff))
	w := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	h.ready("w1")
	time.Sleep(100 * time.Millisecond)
	r0 := w.rounds.Load()
	time.Sleep(500 * time.Millisecond)
	if n := w.rounds.Load() - r0; n > 20 {
		t.Errorf("the idle dispatcher ran %d rounds in 500 ms, want at most 20", n)
	}
	start := time.Now()
	h.wait(submitTo(t, h, "j", 1, "w1")[0])
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a job took %v to run on the idle worker", d)
	}
}

// TestJobCostsOneDispatcherRound: a job that arrives at an idle worker
// starts from the watch that delivers its record, and the echo of its
// record's delete wakes nobody; the dispatcher runs once a job, when the
// slot comes free, not three times.
func TestJobCostsOneDispatcherRound(t *testing.T) {
	h := newHarness(t, WithStealMode(StealOff))
	w := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	h.ready("w1")
	time.Sleep(100 * time.Millisecond)
	const n = 40
	r0 := w.rounds.Load()
	for i := range n {
		h.wait(submitTo(t, h, "j"+strconv.Itoa(i)+"-", 1, "w1")[0])
		time.Sleep(2 * time.Millisecond) // the delete's echo arrives meanwhile
	}
	got := w.rounds.Load() - r0
	t.Logf("%d jobs, %d rounds of the dispatcher", n, got)
	if got > n+n/2 {
		t.Errorf("%d jobs run one at a time cost the dispatcher %d rounds, want at most %d", n, got, n+n/2)
	}
}

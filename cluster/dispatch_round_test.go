package cluster

import (
	"strconv"
	"testing"
	"time"
)

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

package cluster

import (
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

package cluster

import (
	"strconv"
	"testing"
	"time"
)

// idleRate runs w idle workers on a server of their own and returns the
// messages into and out of the server per second per worker, over window,
// once they have settled: what leases, membership and idle thieves cost.
func idleRate(t *testing.T, workers int, window time.Duration) float64 {
	h := newHarness(t, WithLease(time.Second))
	var names []string
	for i := range workers {
		name := "w" + strconv.Itoa(i)
		names = append(names, name)
		h.worker(name, func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	}
	h.ready(names...)
	time.Sleep(time.Second) // past start-up: registrations, scans, first beats
	count := func() int64 {
		v, err := h.e.NATS().Varz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return v.InMsgs + v.OutMsgs
	}
	before, t0 := count(), time.Now()
	time.Sleep(window)
	n, d := count()-before, time.Since(t0)
	return float64(n) / d.Seconds() / float64(workers)
}

// TestIdleControlTraffic: idle control traffic (lease renewals, membership,
// idle thieves) costs each worker about the same number of server messages
// per second at W=4 as at W=16: O(W) in all, not O(W²).
func TestIdleControlTraffic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 workers for several seconds")
	}
	r4 := idleRate(t, 4, 3*time.Second)
	r16 := idleRate(t, 16, 3*time.Second)
	t.Logf("idle server messages per second per worker (lease 1 s): W=4 %.1f, W=16 %.1f", r4, r16)
	if r16 > 1.5*r4 {
		t.Errorf("per-worker idle traffic grows with W: %.1f/s at W=16 against %.1f/s at W=4", r16, r4)
	}
}

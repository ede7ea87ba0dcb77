package steal

import (
	"context"
	"math"
	"runtime"
	"testing"
	"time"
)

// TestStatsCountOutcomes: every task ends up in exactly one of Completed,
// Panics (failed: panic or Goexit) and Skipped.
func TestStatsCountOutcomes(t *testing.T) {
	p := New(WithWorkers(1), WithPanicHandler(func(*PanicError) {}))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 5 {
		p.Go(func() {})
	}
	for range 2 {
		p.Go(func() { panic("boom") })
	}
	p.Go(runtime.Goexit)
	for range 3 {
		p.Submit(cancelled, func(*Worker) { t.Error("a task with a cancelled context ran") })
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	if s.Total.Completed != 5 || s.Total.Panics != 3 || s.Total.Skipped != 3 || s.Total.Ran != 11 {
		t.Errorf("completed %d, failed %d, skipped %d, ran %d; want 5, 3, 3, 11",
			s.Total.Completed, s.Total.Panics, s.Total.Skipped, s.Total.Ran)
	}
	if s.Submitted != 11 || s.Backlog != 0 {
		t.Errorf("submitted %d, backlog %d; want 11, 0", s.Submitted, s.Backlog)
	}
}

// TestBacklogCountsWaitingSubmissions: Backlog is exact while a long task
// runs: every submitted task not yet picked up, and nothing spawned.
func TestBacklogCountsWaitingSubmissions(t *testing.T) {
	p := New(WithWorkers(1))
	started, release := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-release })
	waitClosed(t, started, "blocking task")
	p.Go(func() {})
	p.TrySubmit(func(*Worker) {})
	p.Submit(context.Background(), func(w *Worker) { w.Spawn(func(*Worker) {}) })
	g := p.Group(context.Background())
	g.Go(func(*Worker) error { return nil })
	s := p.Stats()
	if s.Submitted != 5 || s.Backlog != 4 {
		t.Errorf("while the worker is busy: submitted %d, backlog %d; want 5, 4", s.Submitted, s.Backlog)
	}
	close(release)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Submitted != 5 || s.Backlog != 0 || s.Total.Ran != 6 {
		t.Errorf("after Close: submitted %d, backlog %d, ran %d; want 5, 0, 6", s.Submitted, s.Backlog, s.Total.Ran)
	}
}

// TestQueueWaitTimesWaits: tasks held behind a busy worker for hold are
// timed as waiting at least that long.
func TestQueueWaitTimesWaits(t *testing.T) {
	const hold = 20 * time.Millisecond
	p := New(WithWorkers(1), WithQueueWaitSampling(1))
	started, release := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-release })
	waitClosed(t, started, "blocking task")
	for range 10 {
		p.Go(func() {})
	}
	time.Sleep(hold)
	close(release)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	h := p.Stats().QueueWait
	if h.Every != 1 || h.Count != 11 {
		t.Fatalf("every %d, count %d; want 1, 11", h.Every, h.Count)
	}
	long := uint64(0) // timed in a bucket whose lower bound is at least hold/2
	for i := 1; i < len(h.Counts); i++ {
		if h.Bounds[i-1] >= hold/2 {
			long += h.Counts[i]
		}
	}
	if long < 10 {
		t.Errorf("%d waits timed in buckets from %v up, want 10: %v", long, hold/2, h.Counts)
	}
	if h.Sum < 10*hold {
		t.Errorf("total wait %v, want at least %v", h.Sum, 10*hold)
	}
	if q := h.Quantile(0.5); q < hold/2 {
		t.Errorf("median wait %v, want at least %v", q, hold/2)
	}
}

// TestQueueWaitSampling: each submitted task is timed with probability
// 1/every; spawned tasks never are. The bounds are 6 standard deviations
// or more from the mean: a false failure is a one in 10^8 event.
func TestQueueWaitSampling(t *testing.T) {
	const n = 6400
	for _, c := range []struct {
		opts     []Option
		every    int
		min, max uint64 // timed tasks out of n+1
	}{
		{nil, 64, 40, 160},
		{[]Option{WithQueueWaitSampling(3)}, 3, 1900, 2400},
		{[]Option{WithQueueWaitSampling(1)}, 1, n + 1, n + 1},
		{[]Option{WithQueueWaitSampling(0)}, 0, 0, 0},
		{[]Option{WithQueueWaitSampling(-5)}, 0, 0, 0},
	} {
		p := New(append(c.opts, WithWorkers(2))...)
		for range n {
			p.Go(func() {})
		}
		p.Run(func(w *Worker) { // one more submitted task, and n spawned ones
			for range n {
				w.Spawn(func(*Worker) {})
			}
		})
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		h := p.Stats().QueueWait
		if h.Every != c.every || h.Count < c.min || h.Count > c.max {
			t.Errorf("every %d: reported every %d, timed %d of %d submitted; want %d to %d",
				c.every, h.Every, h.Count, n+1, c.min, c.max)
		}
	}
}

func TestWaitBounds(t *testing.T) {
	var h waitHist
	if len(h.counts) != len(waitBounds)+1 {
		t.Fatalf("%d buckets for %d bounds", len(h.counts), len(waitBounds))
	}
	if waitBounds[0] != time.Microsecond || waitBounds[len(waitBounds)-1] != 10*time.Second {
		t.Errorf("bounds run from %v to %v, want 1µs to 10s", waitBounds[0], waitBounds[len(waitBounds)-1])
	}
	for i := 1; i < len(waitBounds); i++ {
		if waitBounds[i] <= waitBounds[i-1] {
			t.Fatalf("bounds not ascending at %d: %v", i, waitBounds)
		}
	}
	for _, c := range []struct {
		d      time.Duration
		bucket int
	}{{-time.Second, 0}, {0, 0}, {time.Microsecond, 0}, {time.Microsecond + 1, 1},
		{3 * time.Millisecond, 11}, {10 * time.Second, 21}, {time.Minute, 22}} {
		var h waitHist
		h.record(c.d)
		if h.counts[c.bucket].Load() != 1 {
			s := h.snapshot(1)
			t.Errorf("%v not in bucket %d: %v", c.d, c.bucket, s.Counts)
		}
	}
}

func TestWaitHistogramQuantile(t *testing.T) {
	bounds := []time.Duration{10, 20, 50}
	h := WaitHistogram{Bounds: bounds, Counts: []uint64{0, 4, 4, 2}, Count: 10}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{
		{0, 10},   // the lowest non-empty bucket starts at 10
		{0.2, 15}, // rank 2 of the 4 in (10, 20]
		{0.4, 20}, // rank 4: the top of (10, 20]
		{0.6, 35}, // rank 6: half way through (20, 50]
		{0.9, 50}, // rank 9: in the bucket past the last bound
		{1, 50},   // likewise
		{-1, 10},  // clamped to 0
		{2, 50},   // clamped to 1
		{math.NaN(), 10},
	} {
		if got := h.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := (WaitHistogram{}).Quantile(0.5); got != 0 {
		t.Errorf("Quantile of an empty histogram = %v, want 0", got)
	}
	if got := (WaitHistogram{Bounds: bounds, Counts: []uint64{3}, Count: 3}).Quantile(0.5); got != 0 {
		t.Errorf("Quantile of a malformed histogram = %v, want 0", got)
	}
}

// TestQueueWaitSamplingSpread: the positions the sampler picks are spread
// evenly over every residue of every period, so a producer whose
// submissions follow a pattern (one kind of task in every 64, say) has
// each kind timed about one time in every. A sampler that took every
// every-th position would time only one kind.
func TestQueueWaitSamplingSpread(t *testing.T) {
	for _, every := range []uint64{2, 3, 7, 64} {
		m := poolMetrics{every: every, sampleBelow: math.MaxUint64 / every}
		for _, period := range []uint64{2, 3, 7, 64, 128, 1000} {
			const perClass = 200 // expected timed positions in each residue class
			counts := make([]int, period)
			for pos := range period * every * perClass {
				if m.sampledAt(pos + 12345) {
					counts[pos%period]++
				}
			}
			for r, n := range counts {
				if n < perClass*8/10 || n > perClass*12/10 {
					t.Errorf("every %d, period %d: residue %d timed %d times, want about %d", every, period, r, n, perClass)
					break
				}
			}
		}
	}
}

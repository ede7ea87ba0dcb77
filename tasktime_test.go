package steal

import (
	"context"
	"testing"
	"time"
)

// Stats.TaskTime times the runs of the tasks whose queue wait is timed,
// and leaves skipped ones out.
func TestTaskTimeHistogram(t *testing.T) {
	p := New(WithWorkers(2), WithQueueWaitSampling(1))
	const n, d = 10, 2 * time.Millisecond
	for range n {
		if err := p.Submit(context.Background(), func(*Worker) { time.Sleep(d) }); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Submit(ctx, func(*Worker) {}); err != nil { // skipped
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	h := s.TaskTime
	if h.Count != n || h.Every != 1 {
		t.Fatalf("TaskTime timed %d tasks (every %d); want %d, every 1 (QueueWait: %d)", h.Count, h.Every, n, s.QueueWait.Count)
	}
	if h.Sum < n*d || h.Quantile(0.5) < d {
		t.Fatalf("TaskTime sum %v, median %v; want at least %v and %v", h.Sum, h.Quantile(0.5), n*d, d)
	}
}

// With sampling off, nothing is timed.
func TestTaskTimeOff(t *testing.T) {
	p := New(WithWorkers(1), WithQueueWaitSampling(0))
	p.Go(func() {})
	p.Close()
	if h := p.Stats().TaskTime; h.Count != 0 || h.Every != 0 {
		t.Fatalf("TaskTime = %+v with sampling off", h)
	}
}

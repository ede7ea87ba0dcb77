package prom

import (
	"context"
	"testing"
	"time"

	"github.com/worksteal/steal"
)

// The task duration histogram carries Stats.TaskTime: the timed tasks'
// count, their total run time, and cumulative buckets in seconds.
func TestTaskDurationHistogram(t *testing.T) {
	p := steal.New(steal.WithWorkers(2), steal.WithQueueWaitSampling(1))
	for range 5 {
		if err := p.Submit(context.Background(), func(*steal.Worker) { time.Sleep(time.Millisecond) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	h := gatherNamed(t, NewCollector(p, "d"), "steal_task_duration_seconds")
	if h.GetSampleCount() != 5 {
		t.Fatalf("sample count %d, want 5", h.GetSampleCount())
	}
	if h.GetSampleSum() < 0.005 {
		t.Fatalf("sample sum %v s, want at least 5 ms", h.GetSampleSum())
	}
	b := h.GetBucket()
	if last := b[len(b)-1].GetCumulativeCount(); last != 5 {
		t.Fatalf("last bucket counts %d, want 5", last)
	}
	for _, x := range b {
		if x.GetUpperBound() < 0.001 && x.GetCumulativeCount() != 0 {
			t.Fatalf("a 1 ms task counted under %v s", x.GetUpperBound())
		}
	}
}

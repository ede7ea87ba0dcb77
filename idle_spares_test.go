package steal

import (
	"context"
	"testing"
)

// Stats.Idle counts the pool's own workers: a spare that parks while the
// worker it stands in for is blocked is not an idle worker.
func TestIdleLeavesOutSpares(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	release := make(chan struct{})
	blocked := make(chan struct{})
	if err := p.Submit(context.Background(), func(w *Worker) {
		w.Block(func() {
			close(blocked)
			<-release
		})
	}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, blocked, "Block")
	// The spare finds nothing to do and parks.
	if !waitUntil(func() bool { return p.nidle.Load() == 1 }) {
		t.Fatal("the spare never parked")
	}
	s := p.Stats()
	close(release)
	if s.Idle != 0 {
		t.Fatalf("Stats.Idle = %d while the only worker is blocked in Block; want 0", s.Idle)
	}
}

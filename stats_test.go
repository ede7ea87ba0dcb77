package steal

import (
	"runtime"
	"testing"
	"time"
)

// TestStatsExactOnceIdle: Stats is exact once the pool is idle, and a
// caller knows that it is by Stats itself (Idle, Backlog). A worker went on
// the idle list before it published its counters, so a snapshot that
// showed every worker idle and no backlog could still miss its last tasks.
func TestStatsExactOnceIdle(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	deadline := time.Now().Add(20 * time.Second)
	want := uint64(0)
	lagged := 0
	for range 1500 {
		for range 3 { // fewer than statsFlushEvery: only parking publishes them
			p.Go(func() {})
		}
		want += 3
		for {
			s := p.Stats()
			if s.Idle == 1 && s.Backlog == 0 {
				if s.Total.Completed != want || s.Total.Ran != want {
					lagged++
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the pool never went idle")
			}
			// Let the worker run: with GOMAXPROCS=1 (-cpu 1) a loop that
			// only polls holds the one processor until it is preempted,
			// 10 ms a time, twice a round, and 1500 rounds ran out of time.
			runtime.Gosched()
		}
	}
	if lagged > 0 {
		t.Errorf("%d of 1500 snapshots of an idle pool lagged behind its tasks", lagged)
	}
}

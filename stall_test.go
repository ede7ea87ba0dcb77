package steal

import (
	"sync"
	"testing"
	"time"
)

func TestStallDetectorFiresForLongTaskWithWorkBehindIt(t *testing.T) {
	var mu sync.Mutex
	var got []Stall
	p := New(WithWorkers(1), WithStallDetector(20*time.Millisecond, func(s Stall) {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
	}))
	p.Run(func(w *Worker) {
		w.Spawn(func(*Worker) {}) // waits behind the sleeper: one worker, nobody steals
		time.Sleep(150 * time.Millisecond)
	})
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("got %d stall reports, want exactly 1 (once per stalled task): %+v", len(got), got)
	}
	if s := got[0]; s.Worker != 0 || s.Queued != 1 || s.Running < 20*time.Millisecond {
		t.Fatalf("report %+v, want worker 0, 1 queued, running >= 20ms", s)
	}
}

func TestStallDetectorSilentForShortTasks(t *testing.T) {
	var mu sync.Mutex
	var got []Stall
	p := New(WithWorkers(2), WithStallDetector(50*time.Millisecond, func(s Stall) {
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
	}))
	deadline := time.Now().Add(300 * time.Millisecond)
	p.Run(func(w *Worker) {
		// Many short tasks, always some queued, for longer than the threshold.
		var chain func(w *Worker)
		chain = func(w *Worker) {
			if time.Now().Before(deadline) {
				w.Spawn(chain)
				w.Spawn(func(*Worker) { time.Sleep(100 * time.Microsecond) })
			}
		}
		chain(w)
	})
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Fatalf("short tasks reported as stalls: %+v", got)
	}
}

func TestStallDetectorSilentForLongTaskWithNothingQueued(t *testing.T) {
	reports := make(chan Stall, 10)
	p := New(WithWorkers(1), WithStallDetector(20*time.Millisecond, func(s Stall) { reports <- s }))
	p.Run(func(*Worker) { time.Sleep(100 * time.Millisecond) })
	p.Close()
	if len(reports) != 0 {
		t.Fatalf("a long task with nothing behind it was reported: %+v", <-reports)
	}
}

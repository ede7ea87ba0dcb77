package steal

import (
	"fmt"
	"sync"
	"testing"
)

// TestGoRecordsReused: a worker reuses the records of the Go functions it
// ran, so once the workers have some, Go allocates no record per task;
// only the inject queue's segments remain (16 bytes a task, one
// allocation per 1023). Without reuse it was 100 allocations a run.
func TestGoRecordsReused(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p := New(WithWorkers(2), WithQueueWaitSampling(0)) // a timed task allocates its stamp
	defer p.Close()
	const n = 1000
	var wg sync.WaitGroup
	task := func() { wg.Done() }
	allocs := testing.AllocsPerRun(20, func() {
		wg.Add(n)
		for range n {
			if err := p.Go(task); err != nil {
				panic(err)
			}
		}
		wg.Wait()
	})
	// Without reuse: a slab of 10 records per 10 tasks, 100 per run.
	if allocs > 5 {
		t.Fatalf("%v allocations per %d Go tasks, want at most 5 (no record per task)", allocs, n)
	}
}

// TestHandleFromRunInsideGoStaysRefused: Pool.Run called inside a Go
// function hands that function's record to its fn as a handle. Such a
// record must never serve another task, or a kept handle would pass for
// the handle of whatever task reused it.
func TestHandleFromRunInsideGoStaysRefused(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var kept *Worker
	done := make(chan struct{})
	if err := p.Go(func() {
		p.Run(func(w *Worker) { kept = w })
		close(done)
	}); err != nil {
		t.Fatal(err)
	}
	<-done
	const later = 500 // more than a worker keeps of finished Go records
	errs := make(chan error, later)
	for range later {
		if err := p.Go(func() {
			if !panics(func() { kept.Spawn(func(*Worker) {}) }) {
				errs <- fmt.Errorf("a handle kept from an earlier task was accepted")
				return
			}
			errs <- nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for range later {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

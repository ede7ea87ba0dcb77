package steal

import (
	"context"
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// TestRecordSizes pins the sizes of the records the ordinary API allocates
// to the allocator's size classes they were made to fit: a task record
// (which is also the task's handle: one per group child and submission)
// 48 bytes, a future (its record and latch with it) 144, a group (with its
// first round's context and two child records) at most 320. The collector
// runs in proportion to bytes allocated, so a field added to any of them
// costs every program that forks per child; this test makes that a
// decision.
func TestRecordSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		size, max uintptr
	}{
		{"task record", unsafe.Sizeof(Worker{}), 48},
		{"Future[int64]", unsafe.Sizeof(Future[int64]{}), 144},
		{"Group", unsafe.Sizeof(Group{}), 320},
	} {
		if c.size > c.max {
			t.Errorf("%s is %d bytes, want <= %d", c.name, c.size, c.max)
		}
	}
}

// TestFinishedTaskKeepsNothingAlive: once a task has finished, its record
// must not keep its function (and what the function captured) reachable.
// Records of Spawn, of group children past a group's own two, and of
// submissions share one allocation per 31 (newRecord), which the worker
// keeps while it hands out the rest: a finished record that held on to its
// closure would keep it, and the closures of up to 30 tasks before it, for
// as long as the worker makes no more records (forever, if it goes idle).
func TestFinishedTaskKeepsNothingAlive(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(p *Pool, fn func(*Worker))
	}{
		{"Spawn", func(p *Pool, fn func(*Worker)) {
			p.Run(func(w *Worker) { w.Spawn(fn) })
		}},
		{"GroupChild", func(p *Pool, fn func(*Worker)) {
			p.Run(func(w *Worker) {
				g := NewGroup(w)
				for i := range 3 { // the third takes a record from the slab
					g.Go(func(w *Worker) error {
						if i == 2 {
							fn(w)
						}
						return nil
					})
				}
				g.Wait()
			})
		}},
		{"Submit", func(p *Pool, fn func(*Worker)) {
			p.Submit(context.Background(), fn)
			// The inject queue clears a taken entry once the queue's head
			// has left its cache line (sweepLocked): move it on.
			for range 8 {
				p.Go(func() {})
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := New(WithWorkers(1))
			defer p.Close()
			done := make(chan struct{})
			fn, kept := holding(done)
			c.run(p, fn)
			fn = nil
			waitClosed(t, done, "the task")
			waitAllParked(t, p) // the worker keeps its slab while idle
			for range 3 {
				runtime.GC()
			}
			if kept.Value() != nil {
				t.Fatal("a finished task's function is still reachable through its record")
			}
		})
	}
}

// holding returns a task function that holds on to a large array, and a
// weak pointer to that array.
func holding(done chan struct{}) (func(*Worker), weak.Pointer[[1 << 16]byte]) {
	big := new([1 << 16]byte)
	return func(*Worker) { big[0]++; close(done) }, weak.Make(big)
}

package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A thief's Len is a snapshot: a count the deque held at some instant during
// the call. Here the owner never lets the deque hold more than one item (it
// pushes only once a thief has taken the last one), so Len may never report
// more than one.
func TestDequeLenIsASnapshot(t *testing.T) {
	d := New[int]()
	item := new(int)
	var stop atomic.Bool
	var worst atomic.Int64
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // owner
		defer wg.Done()
		deadline := time.Now().Add(time.Second)
		for i := 0; i < 2_000_000 && !stop.Load() && time.Now().Before(deadline); i++ {
			d.Push(item)
			for d.Len() != 0 { // exact for the owner
				spin(64) // yields, so that a thief runs even on one P
			}
		}
		stop.Store(true)
	}()
	go func() { // thief
		defer wg.Done()
		for !stop.Load() {
			if d.Steal() == nil {
				spin(64)
			}
		}
	}()
	go func() { // observer
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if n := d.Len(); int64(n) > worst.Load() {
				worst.Store(int64(n))
			}
			if i%4096 == 0 {
				runtime.Gosched()
			}
		}
	}()
	wg.Wait()
	if w := worst.Load(); w > 1 {
		t.Fatalf("a thief's Len reported %d items in a deque that never held more than 1", w)
	}
}

// A thief's Ring.Len is a snapshot too: here the owner puts an item only
// once a thief has taken the last one, so Len may never report more than
// one. Without its re-read of head, Len paired an old head with a newer
// tail and counted items that were never in the ring together.
func TestRingLenIsASnapshot(t *testing.T) {
	var r Ring[int]
	item := new(int)
	var stop atomic.Bool
	var worst atomic.Int64
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // owner
		defer wg.Done()
		deadline := time.Now().Add(time.Second)
		for i := 0; i < 2_000_000 && !stop.Load() && time.Now().Before(deadline); i++ {
			r.Put(item)
			for r.Len() != 0 { // exact for the owner
				spin(64)
			}
		}
		stop.Store(true)
	}()
	go func() { // thief
		defer wg.Done()
		var dst Ring[int]
		for !stop.Load() {
			if r.StealHalf(&dst) == nil {
				spin(64)
			}
		}
	}()
	go func() { // observer
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if n := r.Len(); int64(n) > worst.Load() {
				worst.Store(int64(n))
			}
			if i%4096 == 0 {
				runtime.Gosched()
			}
		}
	}()
	wg.Wait()
	if w := worst.Load(); w > 1 {
		t.Fatalf("a thief's Len reported %d items in a ring that never held more than 1", w)
	}
}

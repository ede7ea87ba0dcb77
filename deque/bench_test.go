package deque

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func BenchmarkDequePushPop(b *testing.B) {
	d := New[int]()
	x := new(int)
	for b.Loop() {
		d.Push(x)
		d.Pop()
	}
}

// BenchmarkDequeSteal measures an uncontended single steal (and the push
// that feeds it).
func BenchmarkDequeSteal(b *testing.B) {
	d := New[int]()
	x := new(int)
	for range 2 * MaxBatch {
		d.Push(x)
	}
	for b.Loop() {
		d.Push(x)
		d.Steal()
	}
}

// BenchmarkDequeStealHalf measures one uncontended batch steal of MaxBatch
// items, moving them back and forth between two deques.
func BenchmarkDequeStealHalf(b *testing.B) {
	src, dst := New[int](), New[int]()
	x := new(int)
	for range 4 * MaxBatch {
		src.Push(x)
	}
	moved := 0
	for b.Loop() {
		if src.Len() < 2*MaxBatch {
			src, dst = dst, src
		}
		dst.Push(src.StealHalf(dst))
		moved += MaxBatch
	}
	b.ReportMetric(float64(moved)/float64(b.N), "items/op")
}

func BenchmarkRingPutGet(b *testing.B) {
	r := new(Ring[int])
	x := new(int)
	for b.Loop() {
		r.Put(x)
		r.Get()
	}
}

// BenchmarkRingStealHalf measures one uncontended batch steal, moving half
// of a ring's RingSize/2 items back and forth between two rings.
func BenchmarkRingStealHalf(b *testing.B) {
	src, dst := new(Ring[int]), new(Ring[int])
	x := new(int)
	for range RingSize / 2 {
		src.Put(x)
	}
	moved := 0
	for b.Loop() {
		if src.Len() < dst.Len() {
			src, dst = dst, src
		}
		n := src.Len()
		dst.Put(src.StealHalf(dst))
		moved += n - n/2
	}
	b.ReportMetric(float64(moved)/float64(b.N), "items/op")
}

// BenchmarkContention runs an owner doing Push, Push, Pop per op (so work
// accumulates for the thieves) while 1 to 4 thieves steal one item at a time
// in a loop, on (a) a Deque, where the owner works at the bottom and the
// thieves at the top, and (b) a mutex-guarded FIFO queue shared by all the
// same goroutines doing the same operations. ns/op is the owner's time per
// op; the ratio mutex/deque at the same thief count is the contention ratio
// quoted in the package documentation.
func BenchmarkContention(b *testing.B) {
	x := new(int)
	for thieves := 1; thieves <= 4; thieves++ {
		b.Run(fmt.Sprintf("deque/thieves=%d", thieves), func(b *testing.B) {
			d := New[int]()
			var stop atomic.Bool
			var stolen atomic.Int64
			var wg sync.WaitGroup
			for range thieves {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := int64(0)
					for !stop.Load() {
						if d.Steal() != nil {
							n++
						} else {
							runtime.Gosched()
						}
					}
					stolen.Add(n)
				}()
			}
			for b.Loop() {
				d.Push(x)
				d.Push(x)
				d.Pop()
			}
			stop.Store(true)
			wg.Wait()
			b.ReportMetric(float64(stolen.Load())/float64(b.N), "stolen/op")
		})
		b.Run(fmt.Sprintf("mutex/thieves=%d", thieves), func(b *testing.B) {
			m := &lockedFIFO[int]{}
			var stop atomic.Bool
			var stolen atomic.Int64
			var wg sync.WaitGroup
			for range thieves {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := int64(0)
					for !stop.Load() {
						if m.take() != nil {
							n++
						} else {
							runtime.Gosched()
						}
					}
					stolen.Add(n)
				}()
			}
			for b.Loop() {
				m.push(x)
				m.push(x)
				m.take()
			}
			stop.Store(true)
			wg.Wait()
			b.ReportMetric(float64(stolen.Load())/float64(b.N), "stolen/op")
		})
	}
}

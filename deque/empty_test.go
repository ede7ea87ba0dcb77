package deque

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Never falsely empty: a thief that starts after the pushes completed, while
// the queue holds at least one item at every instant, must not be told the
// queue is empty, however the owner's operations interleave with its own
// (the idea of the Go runtime's RunSchedLocalQueueEmptyTest). And, when
// nothing disturbs it, a batch steal takes exactly n - n/2 items.

func emptyIters() int {
	n := 10000
	if raceEnabled {
		n /= 5 // the race detector slows each iteration's goroutine start
	}
	if testing.Short() {
		n /= 5
	}
	if runtime.GOMAXPROCS(0) == 1 {
		// One processor: the owner's loop and the thief take turns only at
		// preemptions, about 10 ms apart, so an iteration costs some 20 ms
		// (10000 took 200 s) and more of them find no new interleaving.
		n = min(n, 200)
	}
	return n
}

func TestDequeNeverFalselyEmpty(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(uint64(seed), 1))
	vals := newItems(3 * MaxBatch)
	for i := range emptyIters() {
		d, dst := New[int](), New[int]()
		// The owner pops one item and pushes it back, so with k >= 2 items
		// and a thief taking at most k - k/2 of them, one item at least is
		// always there until the thief's own steal.
		k := 2 + r.IntN(8)
		if i%4 == 3 {
			k = 2 + r.IntN(2*MaxBatch)
		}
		for v := 1; v <= k; v++ {
			d.Push(vals.p(v))
		}
		if i%2 == 0 {
			// A batch steal beforehand, so that Pop pays its CAS near top
			// (a deque never batch-stolen from skips it).
			d.Push(vals.p(k + 1))
			d.Push(vals.p(k + 2))
			for d.StealHalf(dst); dst.Pop() != nil; {
			}
			k = d.Len()
		}
		op := i % 3
		var started, done atomic.Bool
		var ownerFailed atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Store(true)
			for !done.Load() {
				x := d.Pop()
				if x == nil {
					ownerFailed.Store(true)
					return
				}
				d.Push(x)
			}
		}()
		for !started.Load() {
			runtime.Gosched()
		}
		var ok bool
		switch op {
		case 0:
			ok = d.Steal() != nil
		case 1:
			ok = d.StealHalf(dst) != nil
		case 2:
			// With no other thief, Len is exact up to the owner's
			// pop-and-push: k-1 or k, never 0.
			ok = true
			for range 50 {
				if n := d.Len(); n < k-1 || n > k {
					ok = false
				}
			}
		}
		done.Store(true)
		wg.Wait()
		if !ok {
			t.Fatalf("seed %d, iteration %d: %s reported a deque of %d items empty", seed, i, [...]string{"Steal", "StealHalf", "Len"}[op], k)
		}
		if ownerFailed.Load() {
			t.Fatalf("seed %d, iteration %d: Pop reported a deque of at least %d items empty", seed, i, k/2)
		}
	}
}

func TestRingNeverFalselyEmpty(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(uint64(seed), 2))
	vals := newItems(RingSize)
	for i := range emptyIters() {
		q, dst := new(Ring[int]), new(Ring[int])
		// The owner gets the oldest item and puts it back at the tail.
		k := 2 + r.IntN(8)
		if i%4 == 3 {
			k = 2 + r.IntN(RingSize-1)
		}
		for v := 1; v <= k; v++ {
			q.Put(vals.p(v))
		}
		op := i % 2
		var started, done atomic.Bool
		var ownerFailed atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Store(true)
			for !done.Load() {
				x := q.Get()
				if x == nil {
					ownerFailed.Store(true)
					return
				}
				if q.Put(x) != nil {
					ownerFailed.Store(true)
					return
				}
			}
		}()
		for !started.Load() {
			runtime.Gosched()
		}
		var ok bool
		switch op {
		case 0:
			ok = q.StealHalf(dst) != nil
		case 1:
			// Len takes a consistent snapshot: k-1 or k, never 0.
			ok = true
			for range 50 {
				if n := q.Len(); n < k-1 || n > k {
					ok = false
				}
			}
		}
		done.Store(true)
		wg.Wait()
		if !ok {
			t.Fatalf("seed %d, iteration %d: %s reported a ring of %d items empty", seed, i, [...]string{"StealHalf", "Len"}[op], k)
		}
		if ownerFailed.Load() {
			t.Fatalf("seed %d, iteration %d: the owner saw a ring of %d items empty or full", seed, i, k)
		}
	}
}

// startAt moves an empty deque's indices, to test wrap-around of the uint32
// indices.
func (d *Deque[T]) startAt(i uint32) {
	d.top.Store(pack(i, 0))
	d.bottom.Store(i)
	d.clean = i
}

func (r *Ring[T]) startAt(i uint32) {
	r.head.Store(i)
	r.tail.Store(i)
	r.clean = i
}

var startIndices = []uint32{0, 5, math.MaxUint32 - 40, math.MaxUint32 - 3}

func TestDequeStealHalfExactSize(t *testing.T) {
	vals := newItems(300)
	for _, start := range startIndices {
		for n := 0; n <= 3*MaxBatch+5; n++ {
			for _, pre := range []int{0, 1, 40} {
				d, dst := New[int](), New[int]()
				d.startAt(start)
				dst.startAt(start + 7)
				for v := 1; v <= n; v++ {
					d.Push(vals.p(v))
				}
				for v := 0; v < pre; v++ {
					dst.Push(vals.p(200 + v))
				}
				first := d.StealHalf(dst)
				if n == 0 {
					if first != nil || dst.Len() != pre {
						t.Fatalf("start %d: StealHalf of an empty deque returned %v", start, first)
					}
					continue
				}
				k := min(n-n/2, MaxBatch)
				if val(first) != 1 {
					t.Fatalf("start %d, n %d: StealHalf returned %d, want the oldest item 1", start, n, val(first))
				}
				if d.Len() != n-k || dst.Len() != pre+k-1 {
					t.Fatalf("start %d, n %d: victim keeps %d (want %d), dst holds %d (want %d)", start, n, d.Len(), n-k, dst.Len(), pre+k-1)
				}
				for v := k; v >= 2; v-- { // dst's newest are the stolen items, newest last
					if x := dst.Pop(); val(x) != v {
						t.Fatalf("start %d, n %d: dst popped %d, want %d", start, n, val(x), v)
					}
				}
				for v := k + 1; v <= n; v++ { // the victim keeps the newer items, in order
					if x := d.Steal(); val(x) != v {
						t.Fatalf("start %d, n %d: victim's next item %d, want %d", start, n, val(x), v)
					}
				}
			}
		}
	}
}

func TestRingStealHalfExactSize(t *testing.T) {
	vals := newItems(2 * RingSize)
	for _, start := range startIndices {
		for n := 0; n <= RingSize; n++ {
			for _, pre := range []int{0, 1, RingSize - 100, RingSize} {
				q, dst := new(Ring[int]), new(Ring[int])
				q.startAt(start)
				dst.startAt(start + 99)
				for v := 1; v <= n; v++ {
					if q.Put(vals.p(v)) != nil {
						t.Fatal("Put overflowed a ring that was not full")
					}
				}
				for v := 0; v < pre; v++ {
					dst.Put(vals.p(RingSize + 1 + v))
				}
				first := q.StealHalf(dst)
				if n == 0 {
					if first != nil || dst.Len() != pre {
						t.Fatalf("start %d: StealHalf of an empty ring returned %v", start, first)
					}
					continue
				}
				room := RingSize - pre + 1
				k := min(n-n/2, room)
				if val(first) != 1 {
					t.Fatalf("start %d, n %d: StealHalf returned %d, want the oldest item 1", start, n, val(first))
				}
				if q.Len() != n-k || dst.Len() != pre+k-1 {
					t.Fatalf("start %d, n %d, dst %d: victim keeps %d (want %d), dst holds %d (want %d)", start, n, pre, q.Len(), n-k, dst.Len(), pre+k-1)
				}
				for v := 0; v < pre; v++ {
					dst.Get()
				}
				for v := 2; v <= k; v++ {
					if x := dst.Get(); val(x) != v {
						t.Fatalf("start %d, n %d: dst got %d, want %d", start, n, val(x), v)
					}
				}
				for v := k + 1; v <= n; v++ {
					if x := q.Get(); val(x) != v {
						t.Fatalf("start %d, n %d: victim's next item %d, want %d", start, n, val(x), v)
					}
				}
			}
		}
	}
}

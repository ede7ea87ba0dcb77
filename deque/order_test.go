package deque

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A scheduler built on these queues wakes parked workers with a
// store-buffering (Dekker) pattern:
//
//	owner                           a worker about to park
//	Push(x)  // store bottom        idle.Add(1)
//	load idle: anyone to wake?      Len of every deque: anything to run?
//
// "The owner sees nobody idle and the worker sees the deque empty" must be
// impossible, which needs Push's (and Ring.Put's) store to be ordered
// before the owner's later loads: a sequentially consistent store gives
// that, a release store (a plain store on x86) does not. These tests run
// the pattern directly, with flag for the idle count and Len for the look.

// storeBuffering runs rounds of
//
//	owner: op(); r1 = flag.Load()      other: flag.Store(1); r2 = seen()
//
// and returns how many rounds ended with r1 == 0 && !r2, which sequential
// consistency forbids. reset runs on the owner between rounds.
func storeBuffering(budget time.Duration, op func(), seen func() bool, reset func()) (rounds, bad int) {
	var (
		flag   atomic.Uint32
		arrive atomic.Uint64
		r2     atomic.Bool
		stop   atomic.Bool
	)
	barrier := func(target uint64) {
		arrive.Add(1)
		for arrive.Load() < target {
		}
	}
	jitter := func(seed *uint32) { // a varying delay, so that the two sides meet at every offset
		*seed = *seed*1664525 + 1013904223
		for i := uint32(0); i < (*seed>>24)&127; i++ {
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		seed := uint32(7)
		for i := uint64(0); ; i++ {
			barrier(4*i + 2)
			if stop.Load() {
				return
			}
			jitter(&seed)
			flag.Store(1)
			r2.Store(seen())
			barrier(4*i + 4)
		}
	})
	seed := uint32(1)
	deadline := time.Now().Add(budget)
	for i := uint64(0); ; i++ {
		if i%1024 == 0 && time.Now().After(deadline) {
			stop.Store(true)
			barrier(4*i + 2)
			break
		}
		barrier(4*i + 2)
		jitter(&seed)
		op()
		r1 := flag.Load()
		barrier(4*i + 4)
		if r1 == 0 && !r2.Load() {
			bad++
		}
		rounds++
		reset()
		flag.Store(0)
	}
	wg.Wait()
	return rounds, bad
}

func orderBudget(t *testing.T) time.Duration {
	if runtime.GOMAXPROCS(0) < 2 || runtime.NumCPU() < 2 {
		t.Skip("needs two processors running at once")
	}
	if testing.Short() || raceEnabled {
		return 200 * time.Millisecond
	}
	return time.Second
}

// TestPushOrderedBeforeLaterLoads: Push's store of bottom is not passed by
// the owner's next load. A release store failed it hundreds of times a
// second.
func TestPushOrderedBeforeLaterLoads(t *testing.T) {
	budget := orderBudget(t)
	d := New[int]()
	x := new(int)
	var before atomic.Int64 // items before this round's Push
	rounds, bad := storeBuffering(budget,
		func() { d.Push(x) },
		func() bool { return int64(d.Len()) > before.Load() },
		func() {
			if d.Len() >= 1024 { // keep Pop, which moves top, out of the rounds
				for d.Pop() != nil {
				}
			}
			before.Store(int64(d.Len()))
		})
	t.Logf("%d rounds", rounds)
	if bad > 0 {
		t.Errorf("%d of %d rounds: the owner's load passed Push's store while another goroutine saw the deque without the item", bad, rounds)
	}
}

// TestRingPutOrderedBeforeLaterLoads is the same for Ring.Put's store of
// tail.
func TestRingPutOrderedBeforeLaterLoads(t *testing.T) {
	budget := orderBudget(t)
	var r Ring[int]
	x := new(int)
	var before atomic.Int64
	rounds, bad := storeBuffering(budget,
		func() { r.Put(x) },
		func() bool { return int64(r.Len()) > before.Load() },
		func() {
			if r.Len() >= RingSize/2 {
				for r.Get() != nil {
				}
			}
			before.Store(int64(r.Len()))
		})
	t.Logf("%d rounds", rounds)
	if bad > 0 {
		t.Errorf("%d of %d rounds: the owner's load passed Put's store while another goroutine saw the ring without the item", bad, rounds)
	}
}

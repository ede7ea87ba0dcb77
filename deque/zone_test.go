package deque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The zone near top, where Pop must bump the epoch before taking an item
// once a thief has batch-stolen: a thief whose StealHalf read bottom before
// the owner popped claims up to n - n/2 of the n items it saw, and with
// three or more items that range reaches an index the owner pops without
// taking the last item. Every round uses a fresh deque, so that the
// round's first StealHalf, the one that sets batched, races the owner's
// Pops too (a deque never batch-stolen from skips the epoch's CAS).
//
// Short rounds of a few items make the race frequent: the owner pushes
// three to eight items and pops until the deque is empty while the thieves
// batch-steal from it. The broader stress tests reach this window only now
// and then (Pop without the epoch's CAS passed TestDequeExactlyOnce and
// TestDequeLinearizable, and failed TestSlotDequeExactlyOnce in about half
// of its runs).

func zoneRounds() int {
	n := 200_000
	if testing.Short() || raceEnabled {
		n = 40_000
	}
	if runtime.GOMAXPROCS(0) == 1 {
		n /= 4 // the owner and the thieves meet only at preemptions
	}
	return n
}

// jitter burns a few nanoseconds per step, without yielding.
func jitter(n int) {
	for i := 0; i < n; i++ {
		jitterSink.Add(1)
	}
}

var jitterSink atomic.Uint32

func TestDequeZoneExactlyOnce(t *testing.T) {
	seed := testSeed(t)
	rounds := zoneRounds()
	const most = 8
	// No more thieves than processors beside the owner's: a thief that
	// waits for a processor is not racing the owner.
	thieves := max(1, min(3, runtime.GOMAXPROCS(0)-1))
	items := slotMake(rounds * most)
	tr := newSlotTracker(t, seed, len(items))
	// cur is the round's deque; a thief stores what it loaded in looked,
	// so that the owner pops while a thief is at work on it.
	var cur, looked atomic.Pointer[Deque[slotItem]]
	cur.Store(New[slotItem]())
	var stop atomic.Bool
	var pushed atomic.Int64
	var wg sync.WaitGroup
	g := newGate(1 + thieves)

	wg.Add(1)
	go func() { // owner: a fresh deque per round
		defer wg.Done()
		defer stop.Store(true)
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		next := 0
		g.wait()
		for range rounds {
			d := New[slotItem]()
			for k := 3 + r.IntN(most-2); k > 0; k-- {
				x := &items[next]
				x.canary = x.id ^ slotMagic
				d.Push(x)
				next++
			}
			pushed.Store(int64(next))
			cur.Store(d)
			wait := r.IntN(4) != 0 // or pop at once, racing the first look
			for i := 0; wait && looked.Load() != d && i < 1000; i++ {
				if i%64 == 63 {
					runtime.Gosched()
				}
			}
			jitter(r.IntN(12))
			for x := d.Pop(); x != nil; x = d.Pop() {
				tr.take("owner", x)
			}
		}
		// Every deque is empty now; what the thieves hold is theirs to take.
		last, since := tr.consumed.Load(), time.Now()
		for c := tr.consumed.Load(); c < int64(next); c = tr.consumed.Load() {
			if c != last {
				last, since = c, time.Now()
			} else if time.Since(since) > 5*time.Second {
				tr.stuck.Store(true)
				return
			}
			runtime.Gosched()
		}
	}()

	for th := range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := New[slotItem]()
			who := fmt.Sprintf("thief %d", th)
			g.wait()
			for i := 0; !stop.Load(); i++ {
				d := cur.Load()
				looked.Store(d)
				var x *slotItem
				if th == 0 && i%2 == 0 {
					x = d.Steal()
				} else {
					x = d.StealHalf(own)
				}
				if x != nil {
					tr.take(who, x)
				}
				for y := own.Pop(); y != nil; y = own.Pop() {
					tr.take(who, y)
				}
				if x == nil && i%64 == 63 {
					runtime.Gosched()
				}
			}
			for y := own.Pop(); y != nil; y = own.Pop() {
				tr.take(who, y)
			}
		}()
	}
	wg.Wait()
	tr.check(int(pushed.Load()))
	t.Logf("%d rounds, %d items taken exactly once, %d by thieves", rounds, pushed.Load(), tr.byThief.Load())
}

package deque

// Slots are written with plain stores outside the race detector
// (slot_norace.go), so these tests matter most without -race.
//
// These stress tests aim at the places where a slot store could race with a
// thief's read: the owner popping and re-pushing new items at the same index
// while thieves hold stale snapshots (Pop's clear and Push's overwrite),
// popLast racing thieves for the last item, wrap-around of a small buffer,
// growing and shrinking (resize), sweep, StealHalf's copies into the thief's
// own deque that the thief's own thieves then take (chains of batch steals),
// and for Ring, Put/PutBatch/Get/overflow against chained StealHalf.
//
// Every item is a distinct pointer whose payload the producer writes just
// before publishing it; a consumer checks the payload, and every item must be
// taken exactly once. A thief acting on a stale or nil slot value after a
// successful CAS shows up as a duplicate, a lost item or a bad payload.

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type slotItem struct {
	id     uint32
	canary uint32
}

const slotMagic = 0x9e3779b9

func slotMake(n int) []slotItem {
	it := make([]slotItem, n)
	for i := range it {
		it[i].id = uint32(i)
	}
	return it
}

type slotTracker struct {
	t        *testing.T
	seed     int64
	taken    []atomic.Uint32
	consumed atomic.Int64
	byThief  atomic.Int64 // items taken by thieves (Steal, StealHalf, or from their own deques)
	bad      atomic.Int64
	stuck    atomic.Bool
}

func newSlotTracker(t *testing.T, seed int64, n int) *slotTracker {
	return &slotTracker{t: t, seed: seed, taken: make([]atomic.Uint32, n)}
}

// take records x, taken by who.
func (tr *slotTracker) take(who string, x *slotItem) {
	if x.canary != x.id^slotMagic {
		if tr.bad.Add(1) <= 5 {
			tr.t.Errorf("seed %d: %s took item %d with payload %#x (not published?)", tr.seed, who, x.id, x.canary)
		}
	}
	if c := tr.taken[x.id].Add(1); c != 1 {
		if tr.bad.Add(1) <= 5 {
			tr.t.Errorf("seed %d: %s took item %d a %d. time", tr.seed, who, x.id, c)
		}
	}
	if who != "owner" {
		tr.byThief.Add(1)
	}
	tr.consumed.Add(1)
}

func (tr *slotTracker) check(n int) {
	tr.t.Helper()
	lost := 0
	for i := range n {
		if tr.taken[i].Load() == 0 {
			if lost < 5 {
				tr.t.Errorf("seed %d: item %d never taken", tr.seed, i)
			}
			lost++
		}
	}
	if lost > 0 || tr.bad.Load() > 0 {
		tr.t.Fatalf("seed %d: %d items: %d lost, %d bad takes (duplicate or unpublished payload)", tr.seed, n, lost, tr.bad.Load())
	}
}

// drainWait lets the owner keep taking with take until every item is
// consumed, or gives up when nothing moves for a while (items were lost).
func (tr *slotTracker) drainWait(n int, take func() bool) {
	last, since := tr.consumed.Load(), time.Now()
	for c := tr.consumed.Load(); c < int64(n); c = tr.consumed.Load() {
		if take() {
			continue
		}
		if c != last {
			last, since = c, time.Now()
		} else if time.Since(since) > 5*time.Second {
			tr.stuck.Store(true)
			return
		}
		runtime.Gosched()
	}
}

func slotItems() int {
	if testing.Short() || raceEnabled {
		return 200_000
	}
	return 2_000_000
}

func TestSlotDequeExactlyOnce(t *testing.T) {
	seed := testSeed(t)
	n := slotItems()
	items := slotMake(n)
	tr := newSlotTracker(t, seed, n)
	const thieves = 3
	d := New[slotItem]()
	dsts := make([]*Deque[slotItem], thieves)
	for i := range dsts {
		dsts[i] = New[slotItem]()
	}
	var wg sync.WaitGroup
	g := newGate(1 + thieves)
	var phases [3]int

	wg.Add(1)
	go func() { // owner of d
		defer wg.Done()
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		next := 0
		push := func() bool {
			if next == n {
				return false
			}
			x := &items[next]
			x.canary = x.id ^ slotMagic // payload written just before Push
			d.Push(x)
			next++
			return true
		}
		pop := func() bool {
			x := d.Pop()
			if x == nil {
				return false
			}
			tr.take("owner", x)
			return true
		}
		g.wait()
		for next < n {
			switch p := r.IntN(8); {
			case p < 4:
				// Small: the deque holds 0 to 3 items, the owner pops and
				// pushes new items at the same few indices while thieves
				// race it (Pop's clear, popLast, Push over a popped slot),
				// and top walks around the 32-slot buffer.
				phases[0]++
				for range 64 {
					for k := r.IntN(3); k >= 0; k-- {
						push()
					}
					for k := r.IntN(3); k >= 0; k-- {
						if !pop() {
							break
						}
					}
				}
			case p < 6:
				// Near the MaxBatch zone: Pop alternates between its CAS
				// and its CAS-free path.
				phases[1]++
				for d.Len() < MaxBatch+4 && push() {
				}
				for range 64 {
					if r.IntN(2) == 0 {
						push()
					} else {
						pop()
					}
				}
			default:
				// Burst: grow, then pop down (shrink) or leave it to the
				// thieves (Pop on empty drops the big buffer).
				phases[2]++
				burst := 1 + r.IntN(6*MaxBatch)
				for i := 0; i < burst && push(); i++ {
				}
				for pops := r.IntN(burst + 1); pops > 0 && pop(); pops-- {
				}
			}
		}
		tr.drainWait(n, pop)
	}()

	for th := range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(th)))
			own := dsts[th]
			who := fmt.Sprintf("thief %d", th)
			g.wait()
			for tr.consumed.Load() < int64(n) && !tr.stuck.Load() {
				victim := d
				if r.IntN(3) == 0 { // rob another thief: its items came by StealHalf copies
					if o := r.IntN(thieves); o != th {
						victim = dsts[o]
					}
				}
				var x *slotItem
				if r.IntN(2) == 0 {
					x = victim.Steal()
				} else {
					x = victim.StealHalf(own)
				}
				if x != nil {
					tr.take(who, x)
				}
				// Leave most of the loot to be stolen from us.
				for pops := r.IntN(3); pops > 0; pops-- {
					y := own.Pop()
					if y == nil {
						break
					}
					tr.take(who, y)
				}
				if x == nil {
					runtime.Gosched()
				}
			}
			for y := own.Pop(); y != nil; y = own.Pop() { // nothing may stay behind
				tr.take(who, y)
			}
		}()
	}
	wg.Wait()
	tr.check(n)
	t.Logf("%d items taken exactly once, %d by thieves; owner phases small/zone/burst %v", n, tr.byThief.Load(), phases)
}

func TestSlotRingExactlyOnce(t *testing.T) {
	seed := testSeed(t)
	n := slotItems()
	items := slotMake(n)
	tr := newSlotTracker(t, seed, n)
	const thieves = 3
	q := new(Ring[slotItem])
	dsts := make([]*Ring[slotItem], thieves)
	for i := range dsts {
		dsts[i] = new(Ring[slotItem])
	}
	var wg sync.WaitGroup
	g := newGate(1 + thieves)
	var overflows, batches int

	wg.Add(1)
	go func() { // owner of q
		defer wg.Done()
		r := rand.New(rand.NewPCG(uint64(seed), 98))
		next := 0
		var global []*slotItem // overflow batches, fed back with PutBatch
		publish := func(x *slotItem) { x.canary = x.id ^ slotMagic }
		put := func() bool {
			if next == n {
				return false
			}
			x := &items[next]
			next++
			publish(x)
			if batch := q.Put(x); batch != nil {
				overflows++
				global = append(global, batch...) // valid until the next Put: copy now
			}
			return true
		}
		get := func() bool {
			x := q.Get()
			if x == nil {
				return false
			}
			tr.take("owner", x)
			return true
		}
		putBatch := func() {
			k := min(len(global), 1+r.IntN(RingSize))
			m := q.PutBatch(global[:k])
			batches++
			clear(global[:m])
			global = global[m:]
		}
		g.wait()
		for next < n || len(global) > 0 {
			switch p := r.IntN(8); {
			case p < 4:
				// Small: the ring holds a few items; head and tail lap the
				// 256 slots again and again.
				for range 64 {
					for k := r.IntN(3); k >= 0; k-- {
						put()
					}
					for k := r.IntN(3); k >= 0; k-- {
						if !get() {
							break
						}
					}
				}
			case p < 6:
				// Fresh items, some also written with PutBatch.
				if len(global) == 0 && next < n {
					for range 1 + r.IntN(2*RingSize) {
						if next == n {
							break
						}
						x := &items[next]
						next++
						publish(x)
						global = append(global, x)
					}
				}
				if len(global) > 0 {
					putBatch()
				}
				for gets := r.IntN(RingSize); gets > 0 && get(); gets-- {
				}
			default:
				// Burst past the ring's size: overflow.
				burst := 1 + r.IntN(2*RingSize)
				for i := 0; i < burst && put(); i++ {
				}
				for gets := r.IntN(burst + 1); gets > 0 && get(); gets-- {
				}
			}
			if next == n && len(global) > 0 {
				putBatch()
			}
		}
		tr.drainWait(n, get)
	}()

	for th := range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(th)))
			own := dsts[th]
			who := fmt.Sprintf("thief %d", th)
			g.wait()
			for tr.consumed.Load() < int64(n) && !tr.stuck.Load() {
				victim := q
				if r.IntN(3) == 0 {
					if o := r.IntN(thieves); o != th {
						victim = dsts[o]
					}
				}
				x := victim.StealHalf(own)
				if x != nil {
					tr.take(who, x)
				}
				for gets := r.IntN(3); gets > 0; gets-- {
					y := own.Get()
					if y == nil {
						break
					}
					tr.take(who, y)
				}
				if x == nil {
					runtime.Gosched()
				}
			}
			for y := own.Get(); y != nil; y = own.Get() {
				tr.take(who, y)
			}
		}()
	}
	wg.Wait()
	tr.check(n)
	t.Logf("%d items taken exactly once, %d by thieves; %d overflows, %d PutBatch", n, tr.byThief.Load(), overflows, batches)
}

// The owner holds at most two items, so nearly every Pop is popLast racing
// the thieves for the last item at top (its CAS, then its clear of the slot),
// and every Push writes a slot that a thief with a stale snapshot may be
// reading.
func TestSlotDequeLastItemExactlyOnce(t *testing.T) {
	seed := testSeed(t)
	n := slotItems() / 2
	items := slotMake(n)
	tr := newSlotTracker(t, seed, n)
	const thieves = 3
	d := New[slotItem]()
	dsts := make([]*Deque[slotItem], thieves)
	for i := range dsts {
		dsts[i] = New[slotItem]()
	}
	var wg sync.WaitGroup
	g := newGate(1 + thieves)
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(uint64(seed), 97))
		pop := func() bool {
			x := d.Pop()
			if x == nil {
				return false
			}
			tr.take("owner", x)
			return true
		}
		g.wait()
		for next := 0; next < n; {
			for k := 1 + r.IntN(2); k > 0 && next < n; k-- {
				x := &items[next]
				x.canary = x.id ^ slotMagic
				d.Push(x)
				next++
			}
			spin(r.IntN(8))
			for pop() {
			}
		}
		tr.drainWait(n, pop)
	}()
	for th := range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(th)))
			own := dsts[th]
			who := fmt.Sprintf("thief %d", th)
			g.wait()
			for i := 0; tr.consumed.Load() < int64(n) && !tr.stuck.Load(); i++ {
				var x *slotItem
				if r.IntN(2) == 0 {
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
				if i%256 == 255 {
					runtime.Gosched()
				}
			}
		}()
	}
	wg.Wait()
	tr.check(n)
	t.Logf("%d items taken exactly once, %d by thieves", n, tr.byThief.Load())
}

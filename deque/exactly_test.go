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

// Exactly once: at least a million items, an owner pushing and popping while
// four thieves steal one and half, from the owner and from each other; every
// item must be consumed exactly once. Run it with -race and with
// -cpu 1,2,4,8.

const exactlyThieves = 4

func exactlyItems(t *testing.T) int {
	if testing.Short() {
		return 200_000
	}
	return 1_000_000
}

// checkExactlyOnce merges what each consumer took and reports items taken
// twice or never.
func checkExactlyOnce(t *testing.T, seed int64, n int, got [][]int32) {
	t.Helper()
	seen := make([]uint8, n)
	var dup, total int
	for _, g := range got {
		total += len(g)
		for _, v := range g {
			if seen[v] == 1 && dup < 5 {
				t.Errorf("seed %d: item %d consumed twice", seed, v)
			}
			if seen[v] == 1 {
				dup++
			}
			seen[v]++
		}
	}
	lost := 0
	for v, c := range seen {
		if c == 0 {
			if lost < 5 {
				t.Errorf("seed %d: item %d never consumed", seed, v)
			}
			lost++
		}
	}
	if dup > 0 || lost > 0 || total != n {
		t.Fatalf("seed %d: %d items, %d consumptions, %d duplicated, %d lost", seed, n, total, dup, lost)
	}
	counts := make([]string, len(got))
	for i, g := range got {
		counts[i] = fmt.Sprint(len(g))
	}
	t.Logf("%d items consumed exactly once (owner, thieves: %v)", n, counts)
}

func TestDequeExactlyOnce(t *testing.T) {
	seed := testSeed(t)
	n := exactlyItems(t)
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i)
	}
	d := New[int32]()
	dsts := make([]*Deque[int32], exactlyThieves)
	for i := range dsts {
		dsts[i] = New[int32]()
	}
	var consumed atomic.Int64
	var stuck atomic.Bool // items were lost: stop waiting for them
	got := make([][]int32, 1+exactlyThieves)
	var wg sync.WaitGroup
	g := newGate(1 + exactlyThieves)

	wg.Add(1)
	go func() { // owner
		defer wg.Done()
		r := rand.New(rand.NewPCG(uint64(seed), 0))
		var mine []int32
		take := func() bool {
			x := d.Pop()
			if x == nil {
				return false
			}
			mine = append(mine, *x)
			consumed.Add(1)
			return true
		}
		g.wait()
		for next := 0; next < n; {
			// Bursts of every size cross the MaxBatch zone of Pop and make
			// the buffer grow and shrink.
			burst := 1 + r.IntN(3*MaxBatch)
			for i := 0; i < burst && next < n; i++ {
				d.Push(&vals[next])
				next++
			}
			for pops := r.IntN(burst + 1); pops > 0 && take(); pops-- {
			}
		}
		// Wait for the thieves to finish. If items were lost, consumed
		// never reaches n: give up once it has stood still for a while.
		last, since := consumed.Load(), time.Now()
		for c := consumed.Load(); c < int64(n); c = consumed.Load() {
			if take() {
				continue
			}
			if c != last {
				last, since = c, time.Now()
			} else if time.Since(since) > 5*time.Second {
				stuck.Store(true)
				break
			}
			runtime.Gosched()
		}
		got[0] = mine
	}()

	for th := range exactlyThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(th+1)))
			own := dsts[th]
			var mine []int32
			g.wait()
			for consumed.Load() < int64(n) && !stuck.Load() {
				victim := d
				if r.IntN(4) == 0 { // sometimes rob another thief
					if o := r.IntN(exactlyThieves); o != th {
						victim = dsts[o]
					}
				}
				var x *int32
				if r.IntN(2) == 0 {
					x = victim.Steal()
				} else {
					x = victim.StealHalf(own)
				}
				if x != nil {
					mine = append(mine, *x)
					consumed.Add(1)
				}
				// Run some of the loot and leave the rest to be stolen.
				for pops := 1 + r.IntN(4); pops > 0; pops-- {
					y := own.Pop()
					if y == nil {
						break
					}
					mine = append(mine, *y)
					consumed.Add(1)
				}
				if x == nil {
					runtime.Gosched()
				}
			}
			got[1+th] = mine
		}()
	}
	wg.Wait()
	checkExactlyOnce(t, seed, n, got)
}

func TestRingExactlyOnce(t *testing.T) {
	seed := testSeed(t)
	n := exactlyItems(t)
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i)
	}
	r0 := new(Ring[int32])
	dsts := make([]*Ring[int32], exactlyThieves)
	for i := range dsts {
		dsts[i] = new(Ring[int32])
	}
	var consumed atomic.Int64
	var stuck atomic.Bool // items were lost: stop waiting for them
	var overflows atomic.Int64
	got := make([][]int32, 1+exactlyThieves)
	var wg sync.WaitGroup
	g := newGate(1 + exactlyThieves)

	wg.Add(1)
	go func() { // owner; Put's overflow batches go to its "global" list
		defer wg.Done()
		r := rand.New(rand.NewPCG(uint64(seed), 0))
		var mine []int32
		take := func() bool {
			x := r0.Get()
			if x == nil {
				return false
			}
			mine = append(mine, *x)
			consumed.Add(1)
			return true
		}
		g.wait()
		for next := 0; next < n; {
			// Bursts longer than the ring make Put overflow.
			burst := 1 + r.IntN(RingSize+RingSize/2)
			for i := 0; i < burst && next < n; i++ {
				if batch := r0.Put(&vals[next]); batch != nil {
					if len(batch) != RingSize/2+1 || batch[len(batch)-1] != &vals[next] {
						panic(fmt.Sprintf("seed %d: overflow batch of %d items", seed, len(batch)))
					}
					for _, x := range batch {
						mine = append(mine, *x)
					}
					consumed.Add(int64(len(batch)))
					overflows.Add(1)
				}
				next++
			}
			for gets := r.IntN(burst + 1); gets > 0 && take(); gets-- {
			}
		}
		// Wait for the thieves to finish. If items were lost, consumed
		// never reaches n: give up once it has stood still for a while.
		last, since := consumed.Load(), time.Now()
		for c := consumed.Load(); c < int64(n); c = consumed.Load() {
			if take() {
				continue
			}
			if c != last {
				last, since = c, time.Now()
			} else if time.Since(since) > 5*time.Second {
				stuck.Store(true)
				break
			}
			runtime.Gosched()
		}
		got[0] = mine
	}()

	for th := range exactlyThieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(seed), uint64(th+1)))
			own := dsts[th]
			var mine []int32
			g.wait()
			for consumed.Load() < int64(n) && !stuck.Load() {
				victim := r0
				if r.IntN(4) == 0 {
					if o := r.IntN(exactlyThieves); o != th {
						victim = dsts[o]
					}
				}
				x := victim.StealHalf(own)
				if x != nil {
					mine = append(mine, *x)
					consumed.Add(1)
				}
				for gets := 1 + r.IntN(4); gets > 0; gets-- {
					y := own.Get()
					if y == nil {
						break
					}
					mine = append(mine, *y)
					consumed.Add(1)
				}
				if x == nil {
					runtime.Gosched()
				}
			}
			got[1+th] = mine
		}()
	}
	wg.Wait()
	checkExactlyOnce(t, seed, n, got)
	t.Logf("%d overflow batches", overflows.Load())
}

package steal

import (
	"sync/atomic"
	"testing"
)

// UTS, the Unbalanced Tree Search benchmark (Olivier et al., LCPC 2006), in
// its binomial form: the root has utsB0 children; every other node has utsM
// children with probability q = 1/utsM, else none. With utsM*q = 1 the tree is
// critical: deep, narrow in places, impossible to split evenly in advance.
// Each node's children are decided by a splitmix64 hash of its own, so the
// tree (and its node count) is the same however it is walked.
const (
	utsB0 = 2000
	utsM  = 5 // and probability 1/utsM, so utsM*q = 1
)

// utsQCut is q of the hash range: a node has children when its hash is below it.
const utsQCut = uint64(1 << 64 / utsM)

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// utsKids returns how many children the node with hash h has.
func utsKids(h uint64, root bool) int {
	if root {
		return utsB0
	}
	if splitmix(h) < utsQCut {
		return utsM
	}
	return 0
}

func utsChild(h uint64, i int) uint64 { return splitmix(h ^ uint64(i+1)*0x9e3779b97f4a7c15) }

// utsSeq counts the nodes of the subtree at h.
func utsSeq(h uint64, root bool) int64 {
	n := int64(1)
	for i := range utsKids(h, root) {
		n += utsSeq(utsChild(h, i), false)
	}
	return n
}

// utsGroup is the tree walked as a user writes it with errgroup: a group
// per node, one Go per child, Wait.
func utsGroup(w *Worker, h uint64, root bool) int64 {
	k := utsKids(h, root)
	if k == 0 {
		return 1
	}
	var n atomic.Int64
	g := NewGroup(w)
	for i := range k {
		c := utsChild(h, i)
		g.Go(func(w *Worker) error {
			n.Add(utsGroup(w, c, false))
			return nil
		})
	}
	g.Wait()
	return 1 + n.Load()
}

// utsFutures walks it with a future per child.
func utsFutures(w *Worker, h uint64, root bool) int64 {
	k := utsKids(h, root)
	if k == 0 {
		return 1
	}
	fs := make([]*Future[int64], k)
	for i := range k {
		c := utsChild(h, i)
		fs[i] = Spawn(w, func(w *Worker) int64 { return utsFutures(w, c, false) })
	}
	n := int64(1)
	for _, f := range fs {
		v, _ := f.Wait(w)
		n += v
	}
	return n
}

// utsSpan is a run of children [lo, hi) of the node with hash h.
type utsSpan struct {
	h      uint64
	lo, hi int
	root   bool
}

// utsFork2 walks it with the expert API: Fork2 over a binary split of each
// node's children.
func utsFork2(w *Worker, s utsSpan) int64 {
	if s.hi-s.lo == 1 {
		c := utsChild(s.h, s.lo)
		k := utsKids(c, false)
		if k == 0 {
			return 1
		}
		return 1 + utsFork2(w, utsSpan{h: c, lo: 0, hi: k})
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, b := Fork2(w, utsFork2, utsSpan{s.h, s.lo, mid, s.root}, utsSpan{s.h, mid, s.hi, s.root})
	return a + b
}

var utsNodes = utsSeq(1, true)

// BenchmarkUTS compares the walks on one pool of GOMAXPROCS workers. The
// pool's walks also report their steals and parks per run.
func BenchmarkUTS(b *testing.B) {
	for _, group := range []bool{false, true} {
		name := "floor-closures"
		if group {
			name = "floor-closures+group"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if utsFloor(1, true, group) != utsNodes {
					b.Fatal("wrong count")
				}
			}
		})
	}
	b.Run("sequential", func(b *testing.B) {
		for range b.N {
			if utsSeq(1, true) != utsNodes {
				b.Fatal("wrong count")
			}
		}
	})
	p := New()
	defer p.Close()
	for _, bc := range []struct {
		name string
		walk func(w *Worker) int64
	}{
		{"group", func(w *Worker) int64 { return utsGroup(w, 1, true) }},
		{"futures", func(w *Worker) int64 { return utsFutures(w, 1, true) }},
		{"fork2", func(w *Worker) int64 { return 1 + utsFork2(w, utsSpan{h: 1, lo: 0, hi: utsB0, root: true}) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			before := p.Stats().Total
			for range b.N {
				var n int64
				p.Run(func(w *Worker) { n = bc.walk(w) })
				if n != utsNodes {
					b.Fatalf("counted %d nodes, want %d", n, utsNodes)
				}
			}
			reportSteals(b, before, p.Stats().Total)
		})
	}
}

// utsFloorGroup is what a group per node allocates, without the scheduler:
// an object the size of a Group, a counter, and a closure per child (called
// at once). It is the floor for any errgroup-style walk in Go, which must
// keep each child's closure and the group's state on the heap.
type utsFloorGroup struct {
	_ [384]byte
}

var (
	utsFloorSink *utsFloorGroup
	utsFloorFn   func()
)

func utsFloor(h uint64, root, group bool) int64 {
	k := utsKids(h, root)
	if k == 0 {
		return 1
	}
	var n atomic.Int64
	if group {
		utsFloorSink = &utsFloorGroup{}
	}
	for i := range k {
		c := utsChild(h, i)
		fn := func() { n.Add(utsFloor(c, false, group)) }
		utsFloorFn = fn // escapes, as a child's closure does
		fn()
	}
	return 1 + n.Load()
}

// reportSteals reports the steals and parks per run between two snapshots
// of a pool's totals: on many cores a walk's time follows its steals.
func reportSteals(b *testing.B, before, after WorkerStats) {
	n := float64(b.N)
	b.ReportMetric(float64(after.Steals-before.Steals)/n, "steals/op")
	b.ReportMetric(float64(after.Parks-before.Parks)/n, "parks/op")
}

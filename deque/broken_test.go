package deque

import (
	"runtime"
	"sync"
	"testing"
)

// brokenQueue is a deliberately wrong work-stealing queue: every operation
// holds a mutex, but a steal reads the oldest items, lets go of the lock, and
// only then removes "them" (whatever is oldest by now). Two thieves can thus
// take the same item, and a thief can take an item the owner popped. It is
// free of data races, so only the linearizability checker can tell that it
// is wrong; TestCheckerRejectsBrokenQueue proves in every run that it does.
type brokenQueue struct {
	mu   sync.Mutex
	q    []int
	lifo bool
	spec linSpec
}

func (b *brokenQueue) push(v int) linOut {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spec.capacity > 0 && len(b.q) >= b.spec.capacity {
		half := b.spec.capacity / 2
		out := append(append([]int(nil), b.q[:half]...), v)
		b.q = b.q[half:]
		return linOut{list: enc(out...)}
	}
	b.q = append(b.q, v)
	return linOut{}
}

func (b *brokenQueue) pop() linOut {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.q) == 0 {
		return linOut{}
	}
	if b.lifo {
		x := b.q[len(b.q)-1]
		b.q = b.q[:len(b.q)-1]
		return linOut{v: x}
	}
	x := b.q[0]
	b.q = b.q[1:]
	return linOut{v: x}
}

func (b *brokenQueue) ownerLen() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.q)
}

func (b *brokenQueue) thiefLen() (int, bool) { return b.ownerLen(), !b.lifo }

func (b *brokenQueue) steal(int) linOut {
	out := b.stealN(1)
	if out.list == "" {
		return linOut{}
	}
	return linOut{v: dec(out.list)[0]}
}

func (b *brokenQueue) stealHalf(int) linOut {
	return b.stealN(-1)
}

func (b *brokenQueue) stealN(k int) linOut {
	b.mu.Lock()
	n := len(b.q)
	if n == 0 {
		b.mu.Unlock()
		return linOut{}
	}
	if k < 0 {
		k = n - n/2
		if b.spec.maxBatch > 0 {
			k = min(k, b.spec.maxBatch)
		}
	}
	got := append([]int(nil), b.q[:k]...)
	b.mu.Unlock()
	runtime.Gosched() // the bug: check, then act
	b.mu.Lock()
	b.q = b.q[min(k, len(b.q)):]
	b.mu.Unlock()
	return linOut{list: enc(got...)}
}

// TestCheckerRejectsBrokenQueue runs the linearizability harness against
// brokenQueue and requires porcupine to reject some history, so that a
// checker that accepts everything cannot go unnoticed.
func TestCheckerRejectsBrokenQueue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  linConfig
	}{
		{"deque", dequeLinConfig},
		{"ring", ringLinConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := testSeed(t)
			cfg := tc.cfg
			cfg.newQueue = func(items) linQueue { return &brokenQueue{lifo: cfg.spec.lifo, spec: cfg.spec} }
			bad, ok := cfg.check(seed, 2000)
			if bad == "" {
				t.Fatalf("seed %d: porcupine accepted %d histories of a broken queue", seed, ok)
			}
			t.Logf("rejected after %d linearizable histories:\n%s", ok, bad)
		})
	}
}

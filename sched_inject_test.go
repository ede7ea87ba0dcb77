package steal

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestInjectSegmentsExactlyOnce: eight goroutines submit, through Submit
// (with and without a context of their own), Go and TrySubmit, enough
// tasks to fill many of the inject queue's segments, while Close races
// with them. Every submission that returned nil runs exactly once, every
// one refused never runs, and Stats counts exactly the accepted ones, with
// no backlog left.
func TestInjectSegmentsExactlyOnce(t *testing.T) {
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	const producers, per = 8, 3 * segSlots
	for round := range rounds {
		p := New(WithWorkers(1+round%4), WithQueueWaitSampling(7))
		runs := make([]atomic.Int32, producers*per)
		accepted := make([]bool, producers*per)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for g := range producers {
			wg.Go(func() {
				for i := g * per; i < (g+1)*per; i++ {
					err := submitVariant(p, ctx, i, &runs[i])
					switch {
					case err == nil:
						accepted[i] = true
					case !errors.Is(err, ErrClosed):
						t.Errorf("task %d: %v", i, err)
					}
				}
			})
		}
		time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		wg.Wait()
		cancel()
		var want uint64
		for i := range runs {
			n := runs[i].Load()
			if accepted[i] {
				want++
			}
			if accepted[i] && n != 1 || !accepted[i] && n != 0 {
				t.Fatalf("round %d: task %d (accepted %v) ran %d times", round, i, accepted[i], n)
			}
		}
		if s := p.Stats(); s.Submitted != want || s.Backlog != 0 || s.Inject != 0 {
			t.Fatalf("round %d: Submitted %d, Backlog %d, Inject %d; want %d, 0, 0",
				round, s.Submitted, s.Backlog, s.Inject, want)
		}
	}
}

// submitVariant submits a task that counts its runs in n, by one of the
// four ways in from outside, chosen by i.
func submitVariant(p *Pool, ctx context.Context, i int, n *atomic.Int32) error {
	switch i % 4 {
	case 0:
		return p.Submit(context.Background(), func(*Worker) { n.Add(1) })
	case 1:
		return p.Submit(ctx, func(*Worker) { n.Add(1) })
	case 2:
		return p.Go(func() { n.Add(1) })
	}
	return p.TrySubmit(func(*Worker) { n.Add(1) })
}

// TestQueuedTaskBytes: a task queued with Submit or Go costs the pool at
// most 24 bytes of heap until a worker picks it up (a 16-byte entry and a
// share of its segment), measured with every worker held on a gate.
func TestQueuedTaskBytes(t *testing.T) {
	const n = 100_000
	p := New(WithWorkers(2), WithQueueWaitSampling(0))
	defer p.Close()
	gate := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	for range 2 {
		p.Go(func() { started.Done(); <-gate })
	}
	started.Wait()
	var ran atomic.Int64
	task := func(*Worker) { ran.Add(1) }
	before := heapLive()
	for range n / 2 {
		p.Submit(context.Background(), task)
	}
	goTask := func() { ran.Add(1) }
	for range n / 2 {
		p.Go(goTask)
	}
	per := float64(heapLive()-before) / n
	close(gate)
	if per > 24 {
		t.Errorf("a queued task costs %.1f bytes, want at most 24", per)
	}
	t.Logf("%.1f bytes per queued task", per)
}

// heapLive is the heap in use after a collection.
func heapLive() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

package steal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSubmitBatchMixedStress mixes Submit, SubmitBatch (also from tasks),
// TrySubmit and Go at a small cap, with contexts that end, and closes the
// pool at a random moment. Every function reported queued runs at most once
// (exactly once unless its ctx ended), none reported unqueued runs, and after
// Close the backlog count, Stats.Backlog and Stats.Submitted add up.
func TestSubmitBatchMixedStress(t *testing.T) {
	for round := range 40 {
		maxQ := []int{0, 1, 3, 64, 100}[round%5]
		var opts []Option
		if maxQ > 0 {
			opts = append(opts, WithMaxQueued(maxQ))
		}
		opts = append(opts, WithWorkers(1+round%3))
		p := New(opts...)
		const producers = 6
		const per = 2000
		ran := make([]atomic.Int32, producers*per+producers*per) // second half: from tasks
		var queuedTotal, fromTaskQueued atomic.Int64
		reported := make([]atomic.Bool, len(ran))
		mustRun := make([]atomic.Bool, len(ran))
		var wg sync.WaitGroup
		for pr := range producers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(round), uint64(pr)))
				base := pr * per
				i := 0
				for i < per {
					ctx := context.Background()
					var cancel context.CancelFunc = func() {}
					if r.IntN(4) == 0 {
						ctx, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(200))*time.Microsecond)
					}
					n := min(per-i, 1+r.IntN(150))
					switch r.IntN(3) {
					case 0:
						fns := make([]func(*Worker), n)
						for j := range fns {
							id := base + i + j
							fns[j] = func(w *Worker) { ran[id].Add(1) }
						}
						got, err := p.SubmitBatch(ctx, fns)
						if got < 0 || got > n || (got < n && err == nil) {
							t.Errorf("SubmitBatch: %d of %d, %v", got, n, err)
						}
						for j := range got {
							reported[base+i+j].Store(true)
							mustRun[base+i+j].Store(ctx == context.Background())
						}
						queuedTotal.Add(int64(got))
						i += n
					case 1:
						id := base + i
						err := p.Submit(ctx, func(*Worker) { ran[id].Add(1) })
						if err == nil {
							reported[id].Store(true)
							mustRun[id].Store(ctx == context.Background())
							queuedTotal.Add(1)
						}
						i++
					case 2:
						id := base + i
						err := p.TrySubmit(func(*Worker) { ran[id].Add(1) })
						if err == nil {
							reported[id].Store(true)
							mustRun[id].Store(true)
							queuedTotal.Add(1)
						}
						i++
					}
					cancel()
				}
			})
		}
		// Batches from inside tasks, past the cap.
		for pr := range producers {
			base := producers*per + pr*per
			wg.Go(func() {
				done := make(chan struct{})
				err := p.Submit(context.Background(), func(w *Worker) {
					defer close(done)
					fns := make([]func(*Worker), per)
					for j := range fns {
						id := base + j
						fns[j] = func(*Worker) { ran[id].Add(1) }
					}
					got, err := p.SubmitBatch(context.Background(), fns)
					if err != nil && !errors.Is(err, ErrClosed) || err == nil && got != per {
						t.Errorf("from a task: %d, %v", got, err)
					}
					for j := range got {
						reported[base+j].Store(true)
						mustRun[base+j].Store(true)
					}
					fromTaskQueued.Add(int64(got))
				})
				if err != nil {
					close(done)
					return
				}
				queuedTotal.Add(1)
				<-done
			})
		}
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		if round%4 == 0 {
			wg.Wait()
		}
		closeDone := make(chan error, 1)
		go func() { closeDone <- p.Close() }()
		wdone := make(chan struct{})
		go func() { wg.Wait(); close(wdone) }()
		waitClosed(t, wdone, 30*time.Second, fmt.Sprintf("round %d: producers", round))
		waitNil(t, closeDone, 30*time.Second, fmt.Sprintf("round %d: Close", round))
		s := p.Stats()
		want := uint64(queuedTotal.Load() + fromTaskQueued.Load())
		if s.Submitted != want {
			t.Fatalf("round %d (max %d): Submitted %d, want %d", round, maxQ, s.Submitted, want)
		}
		if s.Backlog != 0 {
			t.Fatalf("round %d: Backlog %d after Close", round, s.Backlog)
		}
		if q := p.queued.Load(); q != 0 {
			t.Fatalf("round %d (max %d): queued %d after Close", round, maxQ, q)
		}
		for id := range ran {
			got := ran[id].Load()
			if got > 1 || got == 1 && !reported[id].Load() || got == 0 && mustRun[id].Load() {
				t.Fatalf("round %d: id %d ran %d times, reported queued %v", round, id, got, reported[id].Load())
			}
		}
	}
}

// TestSubmitBatchSegmentEdges: batches that start exactly at a
// segment's first position, end exactly at its last, and span the edge,
// taken in order by hand from a held pool.
func TestSubmitBatchSegmentEdges(t *testing.T) {
	for _, c := range []struct{ before, size int }{
		{segSlots - 1, 1}, {segSlots - 1, 64}, {segSlots - 64, 64}, {segSlots - 63, 64},
		{segSlots - 1 - 10, 20}, {2*segSlots - 1 - 30, 64}, {segSlots - 1, 2000},
	} {
		p, release := heldPool(t)
		q := &p.inject
		var order []int
		next := 1
		add := func() func(*Worker) {
			i := next
			next++
			return func(*Worker) { order = append(order, i) }
		}
		for range c.before {
			if err := p.Submit(context.Background(), add()); err != nil {
				t.Fatal(err)
			}
		}
		fns := make([]func(*Worker), c.size)
		for i := range fns {
			fns[i] = add()
		}
		if n, err := p.SubmitBatch(context.Background(), fns); n != c.size || err != nil {
			t.Fatal(n, err)
		}
		if err := p.Submit(context.Background(), add()); err != nil {
			t.Fatal(err)
		}
		for {
			tk := q.getOne()
			if tk == nil {
				break
			}
			tk.fn(tk)
		}
		if len(order) != next-1 {
			t.Fatalf("%+v: took %d, want %d", c, len(order), next-1)
		}
		for i, v := range order {
			if v != i+1 {
				t.Fatalf("%+v: entry %d taken as %d", c, v, i+1)
			}
		}
		release()
		p.Close()
	}
}

// TestSubmitBatchManyProducers: many more producers than processors,
// batches of random sizes mixed with single Submits, with and without a
// cap: all run once, nothing hangs.
func TestSubmitBatchManyProducers(t *testing.T) {
	for _, maxQ := range []int{0, 7, 1000} {
		p := New(WithMaxQueued(maxQ))
		const producers, per = 32, 6000
		ran := make([]atomic.Int32, producers*per)
		var wg sync.WaitGroup
		for pr := range producers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(pr), 9))
				for i := 0; i < per; {
					if r.IntN(3) == 0 {
						id := pr*per + i
						if err := p.Submit(nil, func(*Worker) { ran[id].Add(1) }); err != nil {
							t.Error(err)
						}
						i++
						continue
					}
					n := min(per-i, 1+r.IntN(130))
					fns := make([]func(*Worker), n)
					for j := range fns {
						id := pr*per + i + j
						fns[j] = func(*Worker) { ran[id].Add(1) }
					}
					if got, err := p.SubmitBatch(nil, fns); got != n || err != nil {
						t.Error(got, err)
					}
					i += n
				}
			})
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		waitClosed(t, done, 60*time.Second, "producers")
		p.Close()
		for id := range ran {
			if ran[id].Load() != 1 {
				t.Fatalf("max %d: id %d ran %d times", maxQ, id, ran[id].Load())
			}
		}
		if q := p.queued.Load(); q != 0 {
			t.Fatalf("queued %d", q)
		}
	}
}

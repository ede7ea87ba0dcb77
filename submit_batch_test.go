package steal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// batchOf returns n functions that each count their own index in ran.
func batchOf(n int, ran []atomic.Int32) []func(*Worker) {
	fns := make([]func(*Worker), n)
	for i := range fns {
		fns[i] = func(*Worker) { ran[i].Add(1) }
	}
	return fns
}

// checkOnce fails unless each of the first n counters is 1 and the rest 0.
func checkOnce(t *testing.T, ran []atomic.Int32, n int) {
	t.Helper()
	for i := range ran {
		want := int32(0)
		if i < n {
			want = 1
		}
		if got := ran[i].Load(); got != want {
			t.Fatalf("function %d ran %d times, want %d", i, got, want)
		}
	}
}

// TestSubmitBatchRunsEachOnce: batches of every size around the chunk and
// the inject queue's segment, with and without a context and a cap, from
// several producers at once: every function runs exactly once.
func TestSubmitBatchRunsEachOnce(t *testing.T) {
	type key struct{}
	sizes := []int{0, 1, submitChunk - 1, submitChunk, submitChunk + 1, segSlots + 5, 3000}
	for _, capped := range []bool{false, true} {
		for _, withCtx := range []bool{false, true} {
			t.Run(fmt.Sprintf("capped=%v/ctx=%v", capped, withCtx), func(t *testing.T) {
				var opts []Option
				if capped {
					opts = append(opts, WithMaxQueued(100))
				}
				p := New(opts...)
				ctx := context.Background()
				if withCtx {
					ctx = context.WithValue(ctx, key{}, "v")
				}
				const producers = 4
				ran := make([][]atomic.Int32, producers*len(sizes))
				errs := make(chan error, len(ran))
				for pr := range producers {
					go func() {
						for j, n := range sizes {
							ran[pr*len(sizes)+j] = make([]atomic.Int32, n)
						}
						for j, n := range sizes {
							r := ran[pr*len(sizes)+j]
							fns := batchOf(n, r)
							if withCtx {
								for i := range fns {
									fns[i] = func(w *Worker) {
										if w.Context().Value(key{}) == "v" {
											r[i].Add(1)
										}
									}
								}
							}
							got, err := p.SubmitBatch(ctx, fns)
							if got != n || err != nil {
								errs <- fmt.Errorf("SubmitBatch of %d: %d, %v", n, got, err)
								continue
							}
							errs <- nil
						}
					}()
				}
				for range len(ran) {
					if err := <-errs; err != nil {
						t.Error(err)
					}
				}
				if err := p.Close(); err != nil {
					t.Fatal(err)
				}
				for j, r := range ran {
					checkOnce(t, r, sizes[j%len(sizes)])
				}
				if s := p.Stats(); s.Submitted != uint64(producers*sumInts(sizes)) {
					t.Fatalf("Stats.Submitted %d, want %d", s.Submitted, producers*sumInts(sizes))
				}
			})
		}
	}
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TestSubmitBatchNilRefusedWhole: a nil function anywhere panics, naming
// its index, and nothing of the batch is queued.
func TestSubmitBatchNilRefusedWhole(t *testing.T) {
	p := New()
	defer p.Close()
	ran := make([]atomic.Int32, 200)
	fns := batchOf(200, ran)
	fns[130] = nil
	msg := fmt.Sprint(mustPanic(t, "SubmitBatch with a nil function", func() {
		p.SubmitBatch(context.Background(), fns)
	}))
	if !strings.Contains(msg, "nil function at index 130") {
		t.Fatalf("panic %q does not name index 130", msg)
	}
	if s := p.Stats(); s.Submitted != 0 {
		t.Fatalf("Stats.Submitted %d after a refused batch, want 0", s.Submitted)
	}
	p.Close()
	checkOnce(t, ran, 0)
}

// TestSubmitBatchClosed: a closed pool queues nothing and says ErrClosed,
// for an empty batch too.
func TestSubmitBatchClosed(t *testing.T) {
	for _, capped := range []bool{false, true} {
		var opts []Option
		if capped {
			opts = append(opts, WithMaxQueued(10))
		}
		p := New(opts...)
		p.Close()
		ran := make([]atomic.Int32, 100)
		for _, n := range []int{0, 100} {
			if got, err := p.SubmitBatch(context.Background(), batchOf(n, ran)); got != 0 || !errors.Is(err, ErrClosed) {
				t.Fatalf("capped=%v, batch of %d on a closed pool: %d, %v; want 0, ErrClosed", capped, n, got, err)
			}
		}
		checkOnce(t, ran, 0)
	}
}

// TestSubmitBatchCapWaitsThenGivesUp: at the cap, SubmitBatch queues what
// fits, waits for room, and on ctx's end returns the count queued and
// ctx.Err() (the queued ones, which see ctx, are then skipped and
// counted); Close while it waits ends the wait with ErrClosed, and the
// queued ones run.
func TestSubmitBatchCapWaitsThenGivesUp(t *testing.T) {
	for _, end := range []string{"ctx", "close"} {
		t.Run(end, func(t *testing.T) {
			p := New(WithWorkers(1), WithMaxQueued(4))
			gate, started := make(chan struct{}), make(chan struct{})
			if err := p.Submit(context.Background(), func(*Worker) { close(started); <-gate }); err != nil {
				t.Fatal(err)
			}
			<-started // the worker is busy and the backlog empty
			ran := make([]atomic.Int32, 10)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				n   int
				err error
			}
			res := make(chan result, 1)
			go func() {
				n, err := p.SubmitBatch(ctx, batchOf(10, ran))
				res <- result{n, err}
			}()
			if !waitUntil(func() bool { return p.Stats().Backlog == 4 }) {
				t.Fatalf("backlog %d, want 4 queued before the wait", p.Stats().Backlog)
			}
			stillBlocked(t, res, 20*time.Millisecond, "SubmitBatch at a full backlog (returned {n err})")
			closed := make(chan error, 1)
			want := context.Canceled
			if end == "ctx" {
				cancel()
			} else {
				want = ErrClosed
				go func() { closed <- p.Close() }()
			}
			r := <-res
			if r.n != 4 || !errors.Is(r.err, want) {
				t.Fatalf("SubmitBatch: %d, %v; want 4, %v", r.n, r.err, want)
			}
			close(gate)
			if end == "ctx" {
				// The four queued share the ended ctx: skipped, and counted.
				p.Close()
				checkOnce(t, ran, 0)
				if s := p.Stats().Total.Skipped; s != 4 {
					t.Fatalf("Skipped %d, want the 4 queued with the ended ctx", s)
				}
				return
			}
			if err := <-closed; err != nil {
				t.Fatal(err)
			}
			checkOnce(t, ran, 4)
		})
	}
}

// TestSubmitBatchFromTaskNeverWaits: called from a task at the cap,
// SubmitBatch queues past the cap instead of waiting for room that only
// the pool's workers can make.
func TestSubmitBatchFromTaskNeverWaits(t *testing.T) {
	p := New(WithWorkers(1), WithMaxQueued(2))
	ran := make([]atomic.Int32, 50)
	done := make(chan error, 1)
	if err := p.Submit(context.Background(), func(*Worker) {
		n, err := p.SubmitBatch(context.Background(), batchOf(50, ran))
		if n != 50 || err != nil {
			err = fmt.Errorf("SubmitBatch from a task: %d, %v; want 50, nil", n, err)
		}
		done <- err
	}); err != nil {
		t.Fatal(err)
	}
	waitNil(t, done, "SubmitBatch from a task at the cap")
	p.Close()
	checkOnce(t, ran, 50)
}

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
		waitClosed(t, wdone, fmt.Sprintf("round %d: producers", round))
		waitNil(t, closeDone, fmt.Sprintf("round %d: Close", round))
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
		waitClosed(t, done, "producers")
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

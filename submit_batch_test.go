package steal

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
			if !waitUntil(5*time.Second, func() bool { return p.Stats().Backlog == 4 }) {
				t.Fatalf("backlog %d, want 4 queued before the wait", p.Stats().Backlog)
			}
			select {
			case r := <-res:
				t.Fatalf("SubmitBatch returned %d, %v at a full backlog; want it waiting", r.n, r.err)
			case <-time.After(20 * time.Millisecond):
			}
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
	waitNil(t, done, 5*time.Second, "SubmitBatch from a task at the cap")
	p.Close()
	checkOnce(t, ran, 50)
}

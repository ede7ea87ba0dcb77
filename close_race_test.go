package steal

import (
	"context"
	"errors"
	"fmt"

	"sync/atomic"
	"testing"
	"time"
)

// Close races with tasks that keep starting work in every way; every
// submission that was accepted runs exactly once, every refusal says
// ErrClosed, and nothing hangs.
func TestCloseRacesStartsFromTasks(t *testing.T) {
	for iter := 0; iter < 60; iter++ {
		workers := 1 + iter%3
		opts := []Option{WithWorkers(workers)}
		if iter%2 == 0 {
			opts = append(opts, WithMaxQueued(1+iter%3))
		}
		p := New(opts...)
		var accepted, ran atomic.Int64
		var bad atomic.Pointer[string]
		badf := func(s string) { bad.CompareAndSwap(nil, &s) }
		var body func(w *Worker, depth int)
		body = func(w *Worker, depth int) {
			ran.Add(1)
			if depth > 3 {
				return
			}
			switch (depth + w.ID()) % 5 {
			case 0:
				accepted.Add(1)
				w.Spawn(func(w *Worker) { body(w, depth+1) })
			case 1:
				if err := p.Submit(context.Background(), func(w *Worker) { body(w, depth+1) }); err == nil {
					accepted.Add(1)
				} else if err != ErrClosed {
					badf("Submit: " + err.Error())
				}
			case 2:
				g := p.Group(context.Background())
				var n atomic.Int64
				for range 2 {
					g.Go(func(w *Worker) error { n.Add(1); body(w, depth+1); return nil })
				}
				err := g.Wait()
				if err != nil && err != ErrClosed {
					badf("Pool.Group.Wait: " + err.Error())
				}
				if err == nil && n.Load() != 2 {
					badf("Pool.Group.Wait nil but children did not run")
				}
				accepted.Add(n.Load())
			case 3:
				f, err := PoolSpawn(context.Background(), p, func(w *Worker) int { body(w, depth+1); return 7 })
				if err != nil {
					if err != ErrClosed {
						badf("PoolSpawn: " + err.Error())
					}
					return
				}
				accepted.Add(1)
				if v, err := f.Wait(w); v != 7 || err != nil {
					badf("Future.Wait: " + fmt.Sprint(v, err))
				}
			case 4:
				g := NewGroup(w)
				g.Go(func(w *Worker) error { body(w, depth+1); return nil })
				g.Go(func(w *Worker) error { body(w, depth+1); return nil })
				accepted.Add(2)
				if err := g.Wait(); err != nil {
					badf("NewGroup.Wait: " + err.Error())
				}
			}
		}
		for i := range 20 {
			if err := p.Submit(context.Background(), func(w *Worker) { body(w, i%3) }); err == nil {
				accepted.Add(1)
			}
		}
		var err error
		if !withinDump(t, 30*time.Second, "Close", func() { err = p.Close() }) {
			return
		}
		if err != nil {
			t.Fatalf("iter %d: Close = %v", iter, err)
		}
		if s := bad.Load(); s != nil {
			t.Fatalf("iter %d: %s", iter, *s)
		}
		if accepted.Load() != ran.Load() {
			t.Fatalf("iter %d: accepted %d, ran %d", iter, accepted.Load(), ran.Load())
		}
	}
}

// Shutdown gives up while tasks keep starting work: every accepted task
// runs or is counted skipped, each waiter gets a documented error, and
// nothing hangs.
func TestShutdownRacesStartsFromTasks(t *testing.T) {
	for iter := 0; iter < 60; iter++ {
		workers := 1 + iter%3
		opts := []Option{WithWorkers(workers)}
		if iter%2 == 0 {
			opts = append(opts, WithMaxQueued(1+iter%3))
		}
		p := New(opts...)
		var accepted, ran atomic.Int64
		var acc, rn [6]atomic.Int64
		var bad atomic.Pointer[string]
		badf := func(s string) { bad.CompareAndSwap(nil, &s) }
		okErr := func(err error) bool {
			var se *SkippedError
			return err == nil || err == ErrClosed || errors.As(err, &se)
		}
		var body func(w *Worker, depth int, kind int) int64
		body = func(w *Worker, depth int, kind int) (nested int64) {
			ran.Add(1)
			rn[kind].Add(1)
			time.Sleep(50 * time.Microsecond)
			if depth > 4 {
				return 0
			}
			switch (depth + w.ID() + int(ran.Load())) % 5 {
			case 0:
				accepted.Add(1)
				acc[0].Add(1)
				w.Spawn(func(w *Worker) { body(w, depth+1, 0) })
			case 1:
				if err := p.Submit(context.Background(), func(w *Worker) { body(w, depth+1, 1) }); err == nil {
					accepted.Add(1)
					acc[1].Add(1)
				} else if err != ErrClosed {
					badf("Submit: " + err.Error())
				}
			case 2:
				g := p.Group(context.Background())
				var n, nest atomic.Int64
				for range 2 {
					g.Go(func(w *Worker) error { n.Add(1); nest.Add(body(w, depth+1, 2)); return nil })
				}
				err := g.Wait()
				if !okErr(err) {
					badf("Pool.Group.Wait: " + err.Error())
				}
				accepted.Add(n.Load() + int64(g.Skipped()) - nest.Load())
				acc[2].Add(n.Load() + int64(g.Skipped()) - nest.Load())
			case 3:
				f, err := PoolSpawn(context.Background(), p, func(w *Worker) int { body(w, depth+1, 3); return 7 })
				if err != nil {
					if err != ErrClosed {
						badf("PoolSpawn: " + err.Error())
					}
					return 0
				}
				accepted.Add(1)
				acc[3].Add(1)
				v, err := f.Wait(w)
				if !okErr(err) || err == ErrClosed || (err == nil && v != 7) {
					badf("Future.Wait: " + fmt.Sprint(v, err))
				}
			case 4:
				g := NewGroup(w)
				g.Go(func(w *Worker) error { body(w, depth+1, 4); return nil })
				g.Go(func(w *Worker) error { body(w, depth+1, 4); return nil })
				accepted.Add(2)
				acc[4].Add(2)
				if err := g.Wait(); !okErr(err) || err == ErrClosed {
					badf("NewGroup.Wait: " + err.Error())
				}
				return int64(g.Skipped())
			}
			return 0
		}
		for i := range 20 {
			if err := p.Submit(context.Background(), func(w *Worker) { body(w, i%3, 5) }); err == nil {
				accepted.Add(1)
				acc[5].Add(1)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(iter%7)*time.Millisecond)
		var err error
		if !withinDump(t, 30*time.Second, "Shutdown", func() { err = p.Shutdown(ctx) }) {
			cancel()
			return
		}
		cancel()
		if err != nil && err != context.DeadlineExceeded && !okErr(err) {
			t.Fatalf("iter %d: Shutdown = %v", iter, err)
		}
		if !withinDump(t, 30*time.Second, "Close", func() { err = p.Close() }) {
			return
		}
		if err != nil && !okErr(err) {
			t.Fatalf("iter %d: Close = %v", iter, err)
		}
		if s := bad.Load(); s != nil {
			t.Fatalf("iter %d: %s", iter, *s)
		}
		st := p.Stats()
		if accepted.Load() != ran.Load()+int64(st.Total.Skipped) {
			var ks string
			for k := range acc {
				ks += fmt.Sprintf(" kind%d acc=%d ran=%d;", k, acc[k].Load(), rn[k].Load())
			}
			t.Fatalf("iter %d: accepted %d, ran %d, skipped %d:%s", iter, accepted.Load(), ran.Load(), st.Total.Skipped, ks)
		}
	}
}

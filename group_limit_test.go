package steal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// gauge counts how many calls are inside it at once, and the most ever.
type gauge struct {
	now, max   atomic.Int64
	overlapped atomic.Bool // waitOverlap has returned once
}

func (g *gauge) enter() {
	n := g.now.Add(1)
	for {
		m := g.max.Load()
		if n <= m || g.max.CompareAndSwap(m, n) {
			return
		}
	}
}

func (g *gauge) leave() { g.now.Add(-1) }

// waitOverlap, called inside the gauge, holds the first callers (at most
// hang) until two calls have been inside at once; later callers pass. A
// test that wants the limit reached uses it so that the calls cannot all
// run one after another because a loaded machine scheduled the other
// workers late: two are inside at once unless the limit is 1.
func (g *gauge) waitOverlap() {
	if !g.overlapped.Load() {
		waitUntil(func() bool { return g.max.Load() >= 2 })
		g.overlapped.Store(true)
	}
}

// busy holds the caller for about d without sleeping, so the worker is
// really occupied, and lets other goroutines run meanwhile.
func busy(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		runtime.Gosched()
	}
}

// TestGroupLimitOneWorkerNested: on a one-worker pool, a NewGroup limited
// to 1 adds 20 children, each of which adds 5 children to a nested group
// also limited to 1, and a Pool.Group limited to 1 is fed from a task.
// Go at the limit runs the queued children instead of blocking the only
// worker, so everything completes; the limits hold at every level.
func TestGroupLimitOneWorkerNested(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var outer, inner, shared gauge
	var ran atomic.Int64
	within(t, "limited groups on one worker", func() {
		err := p.Run(func(w *Worker) {
			g := NewGroup(w)
			g.SetLimit(1)
			for range 20 {
				g.Go(func(w *Worker) error {
					outer.enter()
					defer outer.leave()
					in := NewGroup(w)
					in.SetLimit(1)
					for range 5 {
						in.Go(func(*Worker) error {
							inner.enter()
							defer inner.leave()
							ran.Add(1)
							return nil
						})
					}
					return in.Wait()
				})
			}
			if err := g.Wait(); err != nil {
				t.Errorf("outer Wait = %v", err)
			}
			pg := p.Group(context.Background())
			pg.SetLimit(1)
			for range 10 {
				pg.Go(func(*Worker) error { shared.enter(); shared.leave(); ran.Add(1); return nil })
			}
			if err := pg.Wait(); err != nil {
				t.Errorf("Pool.Group Wait = %v", err)
			}
		})
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	if ran.Load() != 20*5+10 {
		t.Fatalf("ran %d of %d children", ran.Load(), 20*5+10)
	}
	if outer.max.Load() != 1 || inner.max.Load() != 1 || shared.max.Load() != 1 {
		t.Fatalf("at most 1 at once: outer %d, inner %d, shared %d",
			outer.max.Load(), inner.max.Load(), shared.max.Load())
	}
}

// TestGroupLimitNeverExceeded: with four workers and children that hold
// their worker a while, a NewGroup, a Pool.Group fed from outside and a
// ResultGroup never have more children running than their limit, and do
// reach it (the limit is not a mutex in disguise: the first children wait
// for a second one to join them, see waitOverlap).
func TestGroupLimitNeverExceeded(t *testing.T) {
	const limit, children = 3, 60
	p := New(WithWorkers(4))
	defer p.Close()
	child := func(g *gauge) func(*Worker) error {
		return func(*Worker) error {
			g.enter()
			g.waitOverlap()
			busy(200 * time.Microsecond)
			g.leave()
			return nil
		}
	}
	var owned, shared, results gauge
	within(t, "limited groups", func() {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			g.SetLimit(limit)
			for range children {
				g.Go(child(&owned))
			}
			g.Wait()
		})
		g := p.Group(context.Background())
		g.SetLimit(limit)
		for range children {
			g.Go(child(&shared))
		}
		g.Wait()
		r := PoolResultGroup[int](context.Background(), p)
		r.SetLimit(limit)
		for i := range children {
			r.Go(func(w *Worker) (int, error) { return i, child(&results)(w) })
		}
		vals, err := r.Wait()
		if err != nil || len(vals) != children || vals[children-1] != children-1 {
			t.Errorf("ResultGroup: %d values, err %v", len(vals), err)
		}
	})
	for name, g := range map[string]*gauge{"NewGroup": &owned, "Pool.Group": &shared, "ResultGroup": &results} {
		if m := g.max.Load(); m > limit || m < 2 {
			t.Errorf("%s: at most %d children ran at once, want 2..%d", name, m, limit)
		}
	}
}

// TestGroupGoAtLimitBlocksOutside: from outside the pool, Go at the limit
// returns only once a child has finished.
func TestGroupGoAtLimitBlocksOutside(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	g.SetLimit(1)
	gate := make(chan struct{})
	g.Go(func(*Worker) error { <-gate; return nil })
	added := make(chan struct{})
	go func() {
		g.Go(func(*Worker) error { return nil })
		close(added)
	}()
	stillBlocked(t, added, 20*time.Millisecond, "Go while the only slot is held")
	close(gate)
	waitClosed(t, added, "Go after the slot freed")
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestGroupTryGo: TryGo adds a child only below the limit, adds nothing
// otherwise (Wait does not wait for it), and always adds without a limit.
func TestGroupTryGo(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for _, kind := range []string{"NewGroup", "Pool.Group"} {
		within(t, kind, func() {
			p.Run(func(w *Worker) {
				g := p.Group(context.Background())
				if kind == "NewGroup" {
					g = NewGroup(w)
				}
				var ran atomic.Int64
				if !g.TryGo(func(*Worker) error { ran.Add(1); return nil }) {
					t.Errorf("%s: TryGo without a limit = false", kind)
				}
				g.Wait()
				g.SetLimit(1)
				gate := make(chan struct{})
				if !g.TryGo(func(*Worker) error { <-gate; ran.Add(1); return nil }) {
					t.Errorf("%s: TryGo below the limit = false", kind)
				}
				if g.TryGo(func(*Worker) error { ran.Add(100); return nil }) {
					t.Errorf("%s: TryGo at the limit = true", kind)
				}
				close(gate)
				if err := g.Wait(); err != nil {
					t.Errorf("%s: Wait = %v", kind, err)
				}
				if !g.TryGo(func(*Worker) error { ran.Add(1); return nil }) {
					t.Errorf("%s: TryGo after Wait = false", kind)
				}
				g.Wait()
				if ran.Load() != 3 {
					t.Errorf("%s: ran %d, want 3 (the refused child must not run)", kind, ran.Load())
				}
			})
		})
	}
}

// TestGroupLimitZeroAndBadSetLimit: with a limit of 0, TryGo refuses and Go
// panics instead of waiting forever; SetLimit while children are
// unfinished panics and leaves the limit as it was.
func TestGroupLimitZeroAndBadSetLimit(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	g := p.Group(context.Background())
	g.SetLimit(0)
	if g.TryGo(func(*Worker) error { return nil }) {
		t.Fatal("TryGo with limit 0 = true")
	}
	msg := mustPanic(t, "Go with limit 0", func() { g.Go(func(*Worker) error { return nil }) })
	if !strings.Contains(fmt.Sprint(msg), "limit of 0") {
		t.Fatalf("Go with limit 0 panicked with %q", msg)
	}
	g.SetLimit(1)
	gate := make(chan struct{})
	g.Go(func(*Worker) error { <-gate; return nil })
	msg = mustPanic(t, "SetLimit with a child running", func() { g.SetLimit(5) })
	if !strings.Contains(fmt.Sprint(msg), "1 children are unfinished") {
		t.Fatalf("SetLimit panicked with %q", msg)
	}
	if g.TryGo(func(*Worker) error { return nil }) {
		t.Fatal("a refused SetLimit(5) changed the limit")
	}
	close(gate)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	g.SetLimit(-1)
	for range 3 {
		if !g.TryGo(func(*Worker) error { return nil }) {
			t.Fatal("TryGo after SetLimit(-1) = false")
		}
	}
	g.Wait()
}

// TestGroupLimitSkippedFreeSlots: skipped children give their slot back,
// so a limited group whose context is done does not hang.
func TestGroupLimitSkippedFreeSlots(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := p.Group(ctx)
	g.SetLimit(1)
	var err error
	within(t, "skipped children at the limit", func() {
		for range 10 {
			g.Go(func(*Worker) error { return nil })
		}
		err = g.Wait()
	})
	var se *SkippedError
	if !errors.As(err, &se) || se.Count != 10 {
		t.Fatalf("Wait = %v, want 10 skipped", err)
	}
}

// TestGroupTryGoFullBacklog: on a pool WithMaxQueued whose backlog is full,
// a Pool.Group's TryGo refuses instead of blocking, and the refused child
// is not waited for.
func TestGroupTryGoFullBacklog(t *testing.T) {
	p := New(WithWorkers(1), WithMaxQueued(1))
	defer p.Close()
	gate, started := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-gate })
	<-started
	if err := p.TrySubmit(func(*Worker) {}); err != nil { // fills the backlog
		t.Fatal(err)
	}
	g := p.Group(context.Background())
	r := PoolResultGroup[int](context.Background(), p)
	within(t, "TryGo on a full backlog", func() {
		if g.TryGo(func(*Worker) error { return nil }) {
			t.Error("Group.TryGo on a full backlog = true")
		}
		if r.TryGo(func(*Worker) (int, error) { return 1, nil }) {
			t.Error("ResultGroup.TryGo on a full backlog = true")
		}
		if err := g.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
	})
	close(gate)
	vals, err := r.Wait()
	if err != nil || len(vals) != 0 {
		t.Fatalf("ResultGroup after a refused TryGo: %v, %v; want no values", vals, err)
	}
}

// groupTreeLimited is groupTree with every group limited to limit children.
func groupTreeLimited(w *Worker, depth, limit int) int {
	if depth == 0 {
		return 1
	}
	g := NewGroup(w)
	g.SetLimit(limit)
	var l, r int
	g.Go(func(w *Worker) error { l = groupTreeLimited(w, depth-1, limit); return nil })
	g.Go(func(w *Worker) error { r = groupTreeLimited(w, depth-1, limit); return nil })
	if err := g.Wait(); err != nil {
		panic(err)
	}
	return l + r
}

// BenchmarkGroupLimit builds a binary tree of nested groups of depth 16
// (65,535 groups, 131,070 children): without a limit, and with every group
// limited to 1 (its second Go waits, running the first child) and to 2.
func BenchmarkGroupLimit(b *testing.B) {
	p := New()
	defer p.Close()
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			p.Run(func(w *Worker) { groupTree(w, 16) })
		}
	})
	for _, limit := range []int{1, 2} {
		b.Run(fmt.Sprint("limit", limit), func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { groupTreeLimited(w, 16, limit) })
			}
		})
	}
}

// A TryGo that adds nothing leaves the ended round as it was: Wait again
// returns the same values and error. A refused TryGo (limit 0, or a full
// backlog) started a new round, losing both, every time.
func TestRefusedTryGoKeepsEndedRound(t *testing.T) {
	boom := errors.New("boom")
	p := New(WithWorkers(2))
	defer p.Close()

	r := PoolResultGroup[int](nil, p)
	r.Go(func(*Worker) (int, error) { return 7, nil })
	r.Go(func(*Worker) (int, error) { return 0, boom })
	v1, e1 := r.Wait()
	r.SetLimit(0)
	if r.TryGo(func(*Worker) (int, error) { return 1, nil }) {
		t.Fatal("TryGo at limit 0 added a child")
	}
	if v2, e2 := r.Wait(); len(v2) != len(v1) || v2[0] != v1[0] || e2 != e1 {
		t.Fatalf("PoolResultGroup: Wait after a refused TryGo = %v, %v; want %v, %v", v2, e2, v1, e1)
	}

	p.Run(func(w *Worker) {
		g := NewGroup(w)
		g.Go(func(*Worker) error { return boom })
		e1 := g.Wait()
		ctx := g.Context()
		g.SetLimit(0)
		if g.TryGo(func(*Worker) error { return nil }) {
			t.Error("TryGo at limit 0 added a child")
		}
		if e2 := g.Wait(); e2 != e1 || g.Context() != ctx {
			t.Errorf("NewGroup: Wait after a refused TryGo = %v (new context %v), want %v", e2, g.Context() != ctx, e1)
		}
	})

	q := New(WithWorkers(1), WithMaxQueued(1))
	defer q.Close()
	g := q.Group(nil)
	g.Go(func(*Worker) error { return boom })
	e1 = g.Wait()
	gate, started := make(chan struct{}), make(chan struct{})
	q.Go(func() { close(started); <-gate })
	<-started
	if err := q.TrySubmit(func(*Worker) {}); err != nil { // fills the backlog
		t.Fatal(err)
	}
	ok := g.TryGo(func(*Worker) error { return nil })
	e2 := g.Wait()
	close(gate)
	if ok || e2 != e1 {
		t.Fatalf("Pool.Group on a full backlog: TryGo = %v, Wait = %v; want false and %v", ok, e2, e1)
	}
	if b := q.Stats().Backlog; b > 1 {
		t.Fatalf("Backlog = %d after a refused TryGo, want at most the one queued task", b)
	}
}

package steal

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGoRecordsReused: a worker reuses the records of the Go functions it
// ran, so once the workers have some, Go allocates no record per task;
// only the inject queue's segments remain (16 bytes a task, one
// allocation per 1023). Without reuse it was 100 allocations a run.
func TestGoRecordsReused(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p := New(WithWorkers(2), WithQueueWaitSampling(0)) // a timed task allocates its stamp
	defer p.Close()
	const n = 1000
	var wg sync.WaitGroup
	task := func() { wg.Done() }
	allocs := testing.AllocsPerRun(20, func() {
		wg.Add(n)
		for range n {
			if err := p.Go(task); err != nil {
				panic(err)
			}
		}
		wg.Wait()
	})
	// Without reuse: a slab of 10 records per 10 tasks, 100 per run.
	if allocs > 5 {
		t.Fatalf("%v allocations per %d Go tasks, want at most 5 (no record per task)", allocs, n)
	}
}

// TestHandleFromRunInsideGoStaysRefused: Pool.Run called inside a Go
// function hands that function's record to its fn as a handle. Such a
// record must never serve another task, or a kept handle would pass for
// the handle of whatever task reused it.
func TestHandleFromRunInsideGoStaysRefused(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var kept *Worker
	done := make(chan struct{})
	if err := p.Go(func() {
		p.Run(func(w *Worker) { kept = w })
		close(done)
	}); err != nil {
		t.Fatal(err)
	}
	<-done
	const later = 500 // more than a worker keeps of finished Go records
	errs := make(chan error, later)
	for range later {
		if err := p.Go(func() {
			if !panics(func() { kept.Spawn(func(*Worker) {}) }) {
				errs <- fmt.Errorf("a handle kept from an earlier task was accepted")
				return
			}
			errs <- nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for range later {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoRecordsReuseChaos: Go functions that panic, Goexit, call
// Pool.Run (keeping the handle), wait on futures (running reused records
// beneath them), and queue more Go functions from inside, with every task
// timed and a small backlog (forced entries), run exactly once, and every
// kept handle stays refused.
func TestGoRecordsReuseChaos(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var panics atomic.Int64
		p := New(WithWorkers(workers), WithQueueWaitSampling(1), WithMaxQueued(64),
			WithPanicHandler(func(*PanicError) { panics.Add(1) }))
		const n = 20000
		var runs [2 * n]atomic.Int32
		var kept sync.Map
		var wg sync.WaitGroup
		var body func(i int) func()
		body = func(i int) func() {
			return func() {
				defer wg.Done()
				runs[i].Add(1)
				switch i % 7 {
				case 1:
					if i < n {
						wg.Add(1)
						if err := p.Go(body(i + n)); err != nil { // from inside: forced past the cap
							panic(err)
						}
					}
				case 2:
					p.Run(func(w *Worker) { kept.Store(i, w) })
				case 3:
					f, err := PoolSpawn(nil, p, func(*Worker) int { return i })
					if err != nil {
						panic(err)
					}
					if v, err := f.WaitContext(context.Background()); err != nil || v != i {
						panic("future")
					}
				case 4:
					if i%14 == 4 {
						runtime.Goexit()
					}
				case 5:
					if i%35 == 5 {
						panic("boom")
					}
				}
			}
		}
		for i := 0; i < n; i++ {
			wg.Add(1)
			if err := p.Go(body(i)); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		// Kept handles must still be refused, while reused records run.
		refused := make(chan bool, 1)
		kept.Range(func(k, v any) bool {
			w := v.(*Worker)
			wg.Add(1)
			p.Go(func() {
				defer wg.Done()
				defer func() { refused <- recover() != nil }()
				w.Spawn(func(*Worker) {})
			})
			if !<-refused {
				t.Fatalf("kept handle %v accepted", k)
			}
			return true
		})
		wg.Wait()
		p.Close()
		for i := range runs {
			want := int32(1)
			if i >= n && (i-n)%7 != 1 {
				want = 0
			}
			if got := runs[i].Load(); got != want {
				t.Fatalf("workers %d: task %d ran %d times, want %d", workers, i, got, want)
			}
		}
	}
}

// kindsRun counts, per kind of task and id, how often a task ran.
type kindsRun struct {
	seen [8][]atomic.Int32
	bad  atomic.Value // the first error seen
}

func newKindsRun(n int) *kindsRun {
	k := &kindsRun{}
	for i := range k.seen {
		k.seen[i] = make([]atomic.Int32, n)
	}
	return k
}

func (k *kindsRun) mark(kind, id int) {
	if n := k.seen[kind][id].Add(1); n != 1 {
		k.fail(fmt.Errorf("kind %d id %d ran %d times", kind, id, n))
	}
}

func (k *kindsRun) fail(err error) { k.bad.CompareAndSwap(nil, err) }

// missing returns the first task that has not run, or "".
func (k *kindsRun) missing() string {
	for kind := range k.seen {
		for i := range k.seen[kind] {
			if k.seen[kind][i].Load() == 0 {
				return fmt.Sprintf("kind %d id %d", kind, i)
			}
		}
	}
	return ""
}

type stressKey struct{}

// TestRecordKindsExactlyOnce mixes the three kinds of task function a
// record holds in one field (func(*Worker), func() and func(*Worker) error)
// over every way a record is made and moved: Go and Submit from outside,
// every one timed or queued past a full backlog; Spawn past a full ring
// (spilled); NewGroup children past the group's own records (the slab), in
// a second round, limited (ResultGroup); Pool.Group children from outside;
// futures, Join, Fork2 and For parts. Every function must run exactly
// once, as what it is: a func() called as a func(*Worker) error would
// return garbage as its error.
func TestRecordKindsExactlyOnce(t *testing.T) {
	const n = 600
	for iter := range 4 {
		p := New(WithWorkers(3), WithQueueWaitSampling(1+iter%2), WithMaxQueued(64))
		k := newKindsRun(n)
		outside := newCountdown(2)
		go func() { submitKinds(p, k, n); outside.dec() }()
		go func() { poolGroupKinds(p, k, n); outside.dec() }()
		if err := p.Run(func(w *Worker) { insideKinds(w, k, n) }); err != nil {
			t.Fatal(err)
		}
		waitClosed(t, outside.done, "the outside submitters")
		if !waitUntil(func() bool { return k.missing() == "" }) {
			t.Errorf("iteration %d: %s never ran", iter, k.missing())
		}
		p.Close()
		if e := k.bad.Load(); e != nil {
			t.Fatalf("iteration %d: %v", iter, e)
		}
	}
}

// submitKinds: kind 0, Go (func()); kind 1, Submit with a context of its own.
func submitKinds(p *Pool, k *kindsRun, n int) {
	ctx := context.WithValue(context.Background(), stressKey{}, 1) // never done
	for i := range n {
		if err := p.Go(func() { k.mark(0, i) }); err != nil {
			k.fail(err)
		}
		err := p.Submit(ctx, func(w *Worker) {
			if w.Context().Value(stressKey{}) == 1 {
				k.mark(1, i)
			}
		})
		if err != nil {
			k.fail(err)
		}
	}
}

// poolGroupKinds: kind 2, limited Pool.Group children from outside; then a
// round whose children each fail with an error of their own, one of which
// Wait must return.
func poolGroupKinds(p *Pool, k *kindsRun, n int) {
	g := p.Group(context.Background())
	g.SetLimit(5)
	for i := range n {
		g.Go(func(*Worker) error { k.mark(2, i); return nil })
	}
	if err := g.Wait(); err != nil {
		k.fail(fmt.Errorf("Pool.Group: %v", err))
	}
	errs := make(map[error]bool)
	for i := range 20 {
		err := fmt.Errorf("child %d", i)
		errs[err] = true
		g.Go(func(*Worker) error { return err })
	}
	if err := g.Wait(); !errs[err] {
		k.fail(fmt.Errorf("Pool.Group round 2: Wait returned %v", err))
	}
}

// insideKinds: kind 3, Spawn; 4, NewGroup children; 5, Go from inside and
// a group's second round; 6, ResultGroup; 7, futures and For parts.
func insideKinds(w *Worker, k *kindsRun, n int) {
	for i := range n { // more than a ring holds: some spill
		w.Spawn(func(*Worker) { k.mark(3, i) })
	}
	g := NewGroup(w)
	for i := range n {
		g.Go(func(w *Worker) error {
			k.mark(4, i)
			if i%3 == 0 {
				w.Pool().Go(func() { k.mark(5, i) })
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		k.fail(err)
	}
	for i := range n {
		if i%3 != 0 {
			g.Go(func(*Worker) error { k.mark(5, i); return nil })
		}
	}
	if err := g.Wait(); err != nil {
		k.fail(err)
	}
	resultKinds(w, k, n)
	forkKinds(w, k, n)
}

func resultKinds(w *Worker, k *kindsRun, n int) {
	r := NewResultGroup[int](w)
	r.SetLimit(7)
	for i := range n {
		r.Go(func(*Worker) (int, error) { k.mark(6, i); return 3 * i, nil })
	}
	vals, err := r.Wait()
	if err != nil || len(vals) != n {
		k.fail(fmt.Errorf("ResultGroup: %v, %d values", err, len(vals)))
		return
	}
	for i, v := range vals {
		if v != 3*i {
			k.fail(fmt.Errorf("ResultGroup value %d = %d", i, v))
			return
		}
	}
}

func forkKinds(w *Worker, k *kindsRun, n int) {
	futs := make([]*Future[int], n/2)
	for i := range futs {
		futs[i] = Spawn(w, func(*Worker) int { k.mark(7, i); return i })
	}
	For(w, n/2, n, func(w *Worker, i int) {
		Join(w, func(*Worker) {}, func(*Worker) {})
		if a, b := Fork2(w, func(_ *Worker, x int) int { return x }, i, -i); a != i || b != -i {
			k.fail(fmt.Errorf("Fork2(%d, %d) = %d, %d", i, -i, a, b))
		}
		k.mark(7, i)
	})
	for i, f := range futs {
		if v, err := f.Wait(w); v != i || err != nil {
			k.fail(fmt.Errorf("future %d: %d, %v", i, v, err))
		}
	}
}

// TestKeptHandlesOfSlabRecords keeps the handles of tasks whose records
// came from a worker's slab (NewGroup children past the group's own two,
// Spawn, submissions) and uses each from later tasks on the same workers,
// after its task returned: every use must panic, none may pass for the
// handle of the task running then.
func TestKeptHandlesOfSlabRecords(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var mu sync.Mutex
	var kept []*Worker
	keep := func(w *Worker) { mu.Lock(); kept = append(kept, w); mu.Unlock() }
	for range 3 {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			for range 100 {
				g.Go(func(w *Worker) error { keep(w); return nil })
			}
			g.Wait()
			spawned := newCountdown(100)
			for range 100 {
				w.Spawn(func(w *Worker) { keep(w); spawned.dec() })
			}
			// A Run task may block (2 workers), but it runs on a worker
			// goroutine, where the test may not call t.Fatal.
			if _, ok := await(spawned.done); !ok {
				t.Errorf("the spawned tasks had not all run after %v", hang)
			}
		})
		submitted := newCountdown(100)
		for range 100 {
			p.Submit(context.Background(), func(w *Worker) { keep(w); submitted.dec() })
		}
		waitClosed(t, submitted.done, "the submitted tasks")
	}
	// Each task kept its handle before it returned: once every worker is
	// parked, all of them have returned, and every handle is stale. (One
	// used while its task still runs, on another worker, is misuse that
	// cannot always be caught; see Worker.)
	waitAllParked(t, p)
	mu.Lock()
	stale := kept
	mu.Unlock()
	// Check from NewGroup children, whose records (past the first two)
	// come from the same slabs: a record handed out twice would be some
	// checker's own handle.
	var accepted atomic.Int64
	p.Run(func(w *Worker) {
		g := NewGroup(w)
		for _, h := range stale {
			g.Go(func(*Worker) error {
				for _, use := range []func(){
					func() { h.Spawn(func(*Worker) {}) },
					func() { _ = h.Context() },
					func() { NewGroup(h) },
					func() { Join(h, func(*Worker) {}, func(*Worker) {}) },
				} {
					if !panics(use) {
						accepted.Add(1)
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Error(err)
		}
	})
	if len(stale) != 3*300 || accepted.Load() != 0 {
		t.Fatalf("%d uses of %d kept handles accepted", accepted.Load(), len(stale))
	}
}

// panics reports whether fn panicked.
func panics(fn func()) (did bool) {
	defer func() { did = recover() != nil }()
	fn()
	return false
}

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
	"unsafe"
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

// claimOnly claims the inject queue's next position the way put does, but
// leaves the entry unwritten, like a producer preempted between its claim
// and its store. publish writes fn there later; only its first call does.
func claimOnly(q *injectQueue) (publish func(fn func(*Worker))) {
	s := q.tailSeg.Load()
	pos := (q.tail.Add(2) - 2) >> 1
	var once sync.Once
	return func(fn func(*Worker)) {
		once.Do(func() {
			s := q.segFor(s, pos)
			atomic.StorePointer(&s.slots[pos-s.base].fn, *(*unsafe.Pointer)(unsafe.Pointer(&fn)))
		})
	}
}

// heldPool returns a one-worker pool whose worker is held by a task until
// the returned release is called, so that only the test takes from the
// inject queue.
func heldPool(t *testing.T, opts ...Option) (p *Pool, release func()) {
	t.Helper()
	p = New(append([]Option{WithWorkers(1)}, opts...)...)
	gate, started := make(chan struct{}), make(chan struct{})
	if err := p.Go(func() { close(started); <-gate }); err != nil {
		t.Fatal(err)
	}
	<-started
	var once sync.Once
	return p, func() { once.Do(func() { close(gate) }) }
}

// takeWithin calls getOne in a goroutine and returns what it took, failing
// the test if getOne hangs: it must never wait for a producer, which may
// not run again for a long time (and whose worker, in a busy pool, may be
// waiting for the lock getOne holds). On
// failure it first calls publish, so that the waiting take ends and the
// pool can close.
func takeWithin(t *testing.T, q *injectQueue, publish func(func(*Worker))) *task {
	t.Helper()
	got := make(chan *task, 1)
	go func() { got <- q.getOne() }()
	tk, ok := await(got)
	if !ok {
		publish(func(*Worker) {})
		<-got
		t.Fatal("taking from the inject queue waited for a producer that had claimed an entry and not written it")
	}
	return tk
}

// TestInjectTakeSkipsUnwrittenEntry: a worker that finds the entry at the
// head claimed but not yet written takes nothing and returns, instead of
// waiting under the queue's lock; once the entry is written it is taken.
func TestInjectTakeSkipsUnwrittenEntry(t *testing.T) {
	p, release := heldPool(t)
	defer p.Close()
	defer release()
	q := &p.inject
	publish := claimOnly(q)
	if tk := takeWithin(t, q, publish); tk != nil {
		t.Fatal("took a task from a queue whose only entry is unwritten")
	}
	if q.len() != 1 {
		t.Fatalf("len = %d with one claimed entry, want 1: a worker would park on it", q.len())
	}
	ran := false
	publish(func(*Worker) { ran = true })
	tk := takeWithin(t, q, publish)
	if tk == nil {
		t.Fatal("the written entry was not taken")
	}
	tk.fn(tk)
	if !ran {
		t.Fatal("took the wrong task")
	}
}

// TestInjectTakeAcrossUnmadeSegment: when the producer that claimed the
// first position of a segment has not made the segment yet, a worker that
// reaches it makes it instead of waiting; the producer then writes into
// the segment the worker made, and every entry is taken once, in order.
func TestInjectTakeAcrossUnmadeSegment(t *testing.T) {
	p, release := heldPool(t)
	defer p.Close()
	defer release()
	q := &p.inject
	var order []int
	// The held task took position 0. Fill the rest of the first segment,
	// writing its middle entry by hand so that no producer makes the next
	// segment ahead of time.
	for i := 1; i < segSlots; i++ {
		fn := func(*Worker) { order = append(order, i) }
		if i == segSlots/2 {
			claimOnly(q)(fn)
			continue
		}
		if err := p.Submit(context.Background(), fn); err != nil {
			t.Fatal(err)
		}
	}
	publish := claimOnly(q) // the next segment's first position
	for {
		tk := takeWithin(t, q, publish)
		if tk == nil {
			break
		}
		tk.fn(tk)
	}
	if len(order) != segSlots-1 {
		t.Fatalf("took %d entries before the unwritten one, want %d", len(order), segSlots-1)
	}
	publish(func(*Worker) { order = append(order, segSlots) })
	tk := takeWithin(t, q, publish)
	if tk == nil {
		t.Fatal("the entry written into the next segment was not taken")
	}
	tk.fn(tk)
	for i, v := range order {
		if v != i+1 {
			t.Fatalf("entry %d taken as number %d: order lost", v, i+1)
		}
	}
}

// TestBacklogReleasedOnPickUp: WithMaxQueued counts tasks until a worker
// picks them up from the inject queue, and a worker picks up a batch at
// once: while the first task of a batch runs, the rest of the batch sits in
// the worker's own queue and leaves the whole cap free for new Submits.
func TestBacklogReleasedOnPickUp(t *testing.T) {
	const maxQueued = 8
	p, release := heldPool(t, WithMaxQueued(maxQueued))
	defer p.Close()
	defer release()
	first, hold := make(chan struct{}), make(chan struct{})
	defer close(hold)
	var ran atomic.Int64
	for i := range maxQueued {
		fn := func(*Worker) { ran.Add(1) }
		if i == 0 {
			fn = func(*Worker) { close(first); <-hold }
		}
		if err := p.TrySubmit(fn); err != nil {
			t.Fatalf("TrySubmit %d: %v", i, err)
		}
	}
	if err := p.TrySubmit(func(*Worker) {}); !errors.Is(err, ErrBacklogFull) {
		t.Fatalf("TrySubmit past the cap = %v, want ErrBacklogFull", err)
	}
	release() // the worker takes all eight, runs the first, which holds it
	<-first
	for i := range maxQueued {
		if err := p.TrySubmit(func(*Worker) { ran.Add(1) }); err != nil {
			t.Fatalf("TrySubmit %d after the worker picked up the backlog: %v", i, err)
		}
	}
	if err := p.TrySubmit(func(*Worker) {}); !errors.Is(err, ErrBacklogFull) {
		t.Fatalf("TrySubmit past the cap again = %v, want ErrBacklogFull", err)
	}
}

package steal

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

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
// the test if getOne has not returned within a few seconds: it must never
// wait for a producer, which may not run again for a long time (and whose
// worker, in a busy pool, may be waiting for the lock getOne holds). On
// failure it first calls publish, so that the waiting take ends and the
// pool can close.
func takeWithin(t *testing.T, q *injectQueue, publish func(func(*Worker))) *task {
	t.Helper()
	got := make(chan *task, 1)
	go func() { got <- q.getOne() }()
	select {
	case tk := <-got:
		return tk
	case <-time.After(5 * time.Second):
		publish(func(*Worker) {})
		<-got
		t.Fatal("taking from the inject queue waited for a producer that had claimed an entry and not written it")
		return nil
	}
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

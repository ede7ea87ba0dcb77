package deque

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"
)

// big is large enough and holds a pointer, so the allocator never packs it
// into a shared tiny block that something else keeps alive.
type big struct {
	pad  [64]byte //lint:ignore U1000 gives the object its size
	next *big     //lint:ignore U1000 makes the allocator treat it as holding pointers
}

// collectable reports whether every weak pointer has been cleared after a
// few collections.
func collectable(ws []weak.Pointer[big]) bool {
	for range 5 {
		runtime.GC()
		alive := 0
		for _, w := range ws {
			if w.Value() != nil {
				alive++
			}
		}
		if alive == 0 {
			return true
		}
	}
	return false
}

// fill pushes n fresh items with put and returns weak pointers to them.
func fill(n int, put func(*big)) []weak.Pointer[big] {
	ws := make([]weak.Pointer[big], n)
	for i := range ws {
		p := new(big)
		ws[i] = weak.Make(p)
		put(p)
	}
	return ws
}

func TestDequeReleasesTakenItems(t *testing.T) {
	d, dst := New[big](), New[big]()
	popped := fill(5, d.Push)
	for d.Pop() != nil {
	}
	if !collectable(popped) {
		t.Error("items the owner popped are still referenced")
	}

	stolen := fill(40, d.Push)
	for d.Steal() != nil {
	}
	d.Pop() // the owner finds the deque empty, which clears every slot
	if !collectable(stolen) {
		t.Error("items thieves stole are still referenced after the owner found the deque empty")
	}

	batch := fill(2*MaxBatch, d.Push)
	for d.StealHalf(dst) != nil {
		for dst.Pop() != nil {
		}
	}
	d.Pop()
	dst.Pop()
	if !collectable(batch) {
		t.Error("items taken by StealHalf are still referenced")
	}

	// Slots emptied by thieves are also cleared, a few at a time, by Push.
	more := fill(10, d.Push)
	for d.Steal() != nil {
	}
	for range 10 {
		d.Push(new(big))
	}
	if !collectable(more) {
		t.Error("items thieves stole are still referenced after the owner pushed as many again")
	}
	runtime.KeepAlive(d)
	runtime.KeepAlive(dst)
}

func TestRingReleasesTakenItems(t *testing.T) {
	r, dst := new(Ring[big]), new(Ring[big])
	got := fill(5, func(p *big) { r.Put(p) })
	for r.Get() != nil {
	}
	if !collectable(got) {
		t.Error("items the owner got are still referenced")
	}

	stolen := fill(100, func(p *big) { r.Put(p) })
	for r.StealHalf(dst) != nil {
		for dst.Get() != nil {
		}
	}
	r.Get() // the owner finds the ring empty, which clears every slot
	dst.Get()
	if !collectable(stolen) {
		t.Error("items thieves stole are still referenced after the owner found the ring empty")
	}

	// The overflow batch is valid until the owner's next Put or Get, and
	// not after: a ring emptied by Get keeps none of it, even with no Put
	// after the overflow (a worker that stops spawning).
	spill := func(p *big) {
		if batch := r.Put(p); batch != nil {
			_ = append([]*big(nil), batch...) // moved elsewhere, as a scheduler does, and run
		}
	}
	spilled := fill(RingSize+1, spill)
	for r.Get() != nil {
	}
	if !collectable(spilled) {
		t.Error("items of a Put overflow batch are still referenced once Get found the ring empty")
	}
	spilled = fill(RingSize+1, spill)
	for r.Get() != nil {
	}
	r.Put(new(big))
	r.Get()
	if !collectable(spilled) {
		t.Error("items of a Put overflow batch are still referenced after the next Put")
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(dst)
}

func TestDequeShrinksAfterBurst(t *testing.T) {
	const burst = 100_000
	d := New[int]()
	x := new(int)
	for range burst {
		d.Push(x)
	}
	if c := len(d.buf.Load().slots); c < burst {
		t.Fatalf("buffer of %d slots holds %d items", c, burst)
	}
	for d.Pop() != nil {
	}
	if c := len(d.buf.Load().slots); c != minCap {
		t.Errorf("after the owner popped a burst of %d the buffer has %d slots, want %d", burst, c, minCap)
	}

	// A burst that thieves drain must not pin the buffer either.
	for range burst {
		d.Push(x)
	}
	for d.Steal() != nil {
	}
	d.Pop()
	if c := len(d.buf.Load().slots); c != minCap {
		t.Errorf("after thieves stole a burst of %d and the owner found the deque empty the buffer has %d slots, want %d", burst, c, minCap)
	}
	// And it still works.
	for i := range 3 * minCap {
		v := i
		d.Push(&v)
	}
	for i := 3*minCap - 1; i >= 0; i-- {
		if got := d.Pop(); val(got) != i {
			t.Fatalf("after shrinking, Pop = %d, want %d", val(got), i)
		}
	}
}

func mustPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("%s did not panic", what)
		}
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Fatalf("%s panicked with %v, want %q", what, r, want)
		}
	}()
	f()
}

func TestPanics(t *testing.T) {
	d := New[int]()
	mustPanic(t, "Deque.Push(nil)", "nil", func() { d.Push(nil) })
	mustPanic(t, "Deque.StealHalf(itself)", "itself", func() { d.StealHalf(d) })
	if d.Len() != 0 {
		t.Fatal("a panicking Push changed the deque")
	}
	r := new(Ring[int])
	mustPanic(t, "Ring.Put(nil)", "nil", func() { r.Put(nil) })
	mustPanic(t, "Ring.StealHalf(itself)", "itself", func() { r.StealHalf(r) })
	if r.Len() != 0 {
		t.Fatal("a panicking Put changed the ring")
	}
}

// TestStealHalfBadDst: a batch steal into no deque, or into a Deque not
// made by New, panics saying so, whether or not the victim holds items,
// and takes nothing. Into a nil dst, StealHalf of an empty victim returned
// nil and of a full one failed with a nil dereference, so the mistake went
// unnoticed until a victim had work.
func TestStealHalfBadDst(t *testing.T) {
	for _, n := range []int{0, 3} {
		d := New[int]()
		for v := 1; v <= n; v++ {
			d.Push(new(int))
		}
		mustPanic(t, fmt.Sprintf("Deque.StealHalf(nil), victim of %d", n), "nil", func() { d.StealHalf(nil) })
		mustPanic(t, fmt.Sprintf("Deque.StealHalf(zero Deque), victim of %d", n), "New", func() { d.StealHalf(new(Deque[int])) })
		if d.Len() != n {
			t.Fatalf("a panicking StealHalf took items: %d left of %d", d.Len(), n)
		}
		r := new(Ring[int])
		for v := 1; v <= n; v++ {
			r.Put(new(int))
		}
		mustPanic(t, fmt.Sprintf("Ring.StealHalf(nil), victim of %d", n), "nil", func() { r.StealHalf(nil) })
		if r.Len() != n {
			t.Fatalf("a panicking Ring.StealHalf took items: %d left of %d", r.Len(), n)
		}
	}
}

// TestPutBatchNilWritesNothing: a PutBatch that panics on a nil item has
// stored none of the items before it, so the ring keeps none alive.
func TestPutBatchNilWritesNothing(t *testing.T) {
	r := new(Ring[big])
	a := new(big)
	w := weak.Make(a)
	mustPanic(t, "Ring.PutBatch with a nil", "nil", func() { r.PutBatch([]*big{a, nil}) })
	a = nil
	if r.Len() != 0 {
		t.Fatal("a panicking PutBatch changed the ring")
	}
	if !collectable([]weak.Pointer[big]{w}) {
		t.Error("an item before the nil of a panicking PutBatch is still referenced")
	}
	runtime.KeepAlive(r)
}

// TestDequeOwnsItsCacheLines: a Deque is exactly two cache lines (top's,
// and the owner's), so that deques allocated side by side share none.
func TestDequeOwnsItsCacheLines(t *testing.T) {
	if n := unsafe.Sizeof(Deque[int]{}); n != 128 {
		t.Fatalf("Deque is %d bytes, want 128 (two whole cache lines)", n)
	}
	if off := unsafe.Offsetof(Deque[int]{}.bottom); off != 64 {
		t.Fatalf("bottom at offset %d, want 64 (its own line)", off)
	}
}

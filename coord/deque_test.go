package coord

import (
	"math/rand/v2"
	"testing"
)

func TestDequeOwnerIsLIFOThiefTakesOldest(t *testing.T) {
	var d Deque[int]
	for i := range 3 {
		d.PushFront(i) // owner pushes 0, 1, 2: front is the newest
	}
	if v, _ := d.PopFront(); v != 2 {
		t.Fatalf("owner pop = %d, want newest 2", v)
	}
	if v, _ := d.PopBack(); v != 0 {
		t.Fatalf("thief take = %d, want oldest 0", v)
	}
	if d.Len() != 1 || d.At(0) != 1 {
		t.Fatalf("left %d elements, front %d; want one element 1", d.Len(), d.At(0))
	}
}

func TestDequeEmptyPops(t *testing.T) {
	var d Deque[string]
	if _, ok := d.PopFront(); ok {
		t.Fatal("PopFront on empty deque reported ok")
	}
	if _, ok := d.PopBack(); ok {
		t.Fatal("PopBack on empty deque reported ok")
	}
}

func TestDequeAtPanicsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("At(1) on a one-element deque did not panic")
		}
	}()
	var d Deque[int]
	d.PushBack(1)
	d.At(1)
}

// TestDequeMatchesSliceModel checks every operation against a plain slice
// through many growths and wrap-arounds.
func TestDequeMatchesSliceModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var d Deque[int]
	var model []int
	for step := range 20000 {
		switch r.IntN(4) {
		case 0:
			d.PushFront(step)
			model = append([]int{step}, model...)
		case 1:
			d.PushBack(step)
			model = append(model, step)
		case 2:
			v, ok := d.PopFront()
			if ok != (len(model) > 0) || ok && v != model[0] {
				t.Fatalf("step %d: PopFront = %d,%v; model %v", step, v, ok, model[:min(3, len(model))])
			}
			if ok {
				model = model[1:]
			}
		case 3:
			v, ok := d.PopBack()
			if ok != (len(model) > 0) || ok && v != model[len(model)-1] {
				t.Fatalf("step %d: PopBack = %d,%v", step, v, ok)
			}
			if ok {
				model = model[:len(model)-1]
			}
		}
		if d.Len() != len(model) {
			t.Fatalf("step %d: Len = %d, want %d", step, d.Len(), len(model))
		}
	}
	for i, want := range model {
		if got := d.At(i); got != want {
			t.Fatalf("At(%d) = %d, want %d", i, got, want)
		}
	}
}

func BenchmarkDequePushPopFront(b *testing.B) {
	var d Deque[int32]
	for i := range b.N {
		d.PushFront(int32(i))
		d.PopFront()
	}
}

// Grow keeps the order of a wrapped ring and makes the next n pushes
// allocation-free.
func TestDequeGrow(t *testing.T) {
	var d Deque[int]
	for i := range 8 {
		d.PushBack(i)
	}
	d.PopFront()
	d.PopFront()
	d.PushBack(8) // the ring wraps: the front is at index 2
	d.Grow(100)
	size := len(d.buf)
	if size < 107 || size&(size-1) != 0 {
		t.Fatalf("buffer of %d for 7 + 100 elements", size)
	}
	for i := range 100 {
		d.PushFront(-i)
	}
	if len(d.buf) != size {
		t.Fatalf("pushes after Grow reallocated: %d -> %d", size, len(d.buf))
	}
	for i := range 7 {
		if v := d.At(100 + i); v != i+2 {
			t.Fatalf("element %d = %d after Grow, want %d", 100+i, v, i+2)
		}
	}
	d.Grow(0)
	if len(d.buf) != size {
		t.Fatal("Grow(0) reallocated")
	}
}

package deque

import "testing"

// PopIf takes the newest item only if it is the one asked for, and
// otherwise leaves the deque, indices included, as it was.
func TestPopIfKeepsIndices(t *testing.T) {
	d := New[int]()
	a, b := new(int), new(int)
	d.Push(a)
	bottom := d.Bottom()
	if d.PopIf(b) {
		t.Fatal("PopIf(b) took a")
	}
	if d.Bottom() != bottom || d.Len() != 1 {
		t.Fatalf("after a refused PopIf: Bottom %d, Len %d; want %d, 1", d.Bottom(), d.Len(), bottom)
	}
	d.Push(b)
	if !d.PopIf(b) {
		t.Fatal("PopIf(b) refused the newest item b")
	}
	if d.PopIf(b) {
		t.Fatal("PopIf(b) took a")
	}
	if !d.PopIf(a) || d.Len() != 0 {
		t.Fatal("PopIf(a) refused the last item a")
	}
	if d.PopIf(a) {
		t.Fatal("PopIf on an empty deque took something")
	}
}

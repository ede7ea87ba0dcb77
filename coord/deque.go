package coord

// Deque is a double-ended queue on a growable ring buffer. The cluster uses
// its front for the owner (push and pop) and its back for thieves, which is
// the layout that keeps owner and thief apart in a concurrent deque; here it
// is single-threaded, so the layout only fixes the order of jobs.
//
// The zero value is an empty deque ready to use. Every operation is O(1)
// amortised; the buffer doubles when full and never shrinks.
type Deque[T any] struct {
	buf  []T // len(buf) is zero or a power of two
	head int // index of the front element
	n    int // number of elements
}

// Len reports the number of elements.
func (d *Deque[T]) Len() int { return d.n }

// PushFront adds v at the front.
func (d *Deque[T]) PushFront(v T) {
	d.reserve()
	d.head = (d.head - 1) & (len(d.buf) - 1)
	d.buf[d.head] = v
	d.n++
}

// PushBack adds v at the back.
func (d *Deque[T]) PushBack(v T) {
	d.reserve()
	d.buf[(d.head+d.n)&(len(d.buf)-1)] = v
	d.n++
}

// PopFront removes and returns the front element; ok is false when empty.
func (d *Deque[T]) PopFront() (v T, ok bool) {
	if d.n == 0 {
		return v, false
	}
	var zero T
	v, d.buf[d.head] = d.buf[d.head], zero // release what v references
	d.head = (d.head + 1) & (len(d.buf) - 1)
	d.n--
	return v, true
}

// PopBack removes and returns the back element; ok is false when empty.
func (d *Deque[T]) PopBack() (v T, ok bool) {
	if d.n == 0 {
		return v, false
	}
	var zero T
	i := (d.head + d.n - 1) & (len(d.buf) - 1)
	v, d.buf[i] = d.buf[i], zero
	d.n--
	return v, true
}

// At returns the i-th element counted from the front; it panics when i is
// out of range, like a slice index.
func (d *Deque[T]) At(i int) T {
	if i < 0 || i >= d.n {
		panic("cluster: Deque index out of range")
	}
	return d.buf[(d.head+i)&(len(d.buf)-1)]
}

// Grow makes room for n more elements, so that the next n pushes do not
// reallocate; a deque filled to a size known in advance is then allocated
// once rather than doubled up to it.
func (d *Deque[T]) Grow(n int) {
	if d.n+n <= len(d.buf) {
		return
	}
	size := max(8, len(d.buf))
	for size < d.n+n {
		size *= 2
	}
	d.resize(size)
}

// reserve makes room for one more element, doubling the buffer.
func (d *Deque[T]) reserve() {
	if d.n == len(d.buf) {
		d.resize(max(8, 2*len(d.buf)))
	}
}

// resize moves the elements to a buffer of the given size, a power of two,
// unrolling the ring so that the front lands at index 0.
func (d *Deque[T]) resize(size int) {
	buf := make([]T, size)
	for i := range d.n {
		buf[i] = d.buf[(d.head+i)&(len(d.buf)-1)]
	}
	d.buf, d.head = buf, 0
}

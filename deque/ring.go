package deque

import "sync/atomic"

// RingSize is the capacity of a Ring, the same as the Go runtime's per-P run
// queue.
const RingSize = 256

// Ring is the Go runtime's bounded per-worker run queue (runtime.p.runq),
// holding *T.
//
// The owner puts at the tail and gets at the head (FIFO, so queued tasks run
// in the order they were spawned); thieves grab half from the head. Unlike
// Deque, owner and thieves share the head, so the owner's Get is a CAS; in
// exchange a thief claims up to half the ring in one CAS, and the owner never
// waits for a resize because the ring never grows: a full ring hands half of
// itself back to the owner to move to an unbounded queue (runqputslow).
//
// Why each atomic is there: tail is written only by the owner and read by
// thieves; the owner writes a slot before it stores tail, so a thief that
// loads tail also sees the slot. head is advanced only by CAS, by the owner
// (one item) and by thieves (a batch); the loser re-reads. Slots are read
// atomically and written plainly, as in Deque (slot_norace.go): a thief may
// read a slot the owner is overwriting after wrap-around, and its CAS on
// head then fails and the value is discarded.
//
// Memory: a taken slot is not cleared at once (clearing is a store with a
// write barrier, and with an atomic store it doubled the cost of a task). Put overwrites
// it within RingSize puts, and a Get that finds the ring empty clears every
// slot taken since and Put's last overflow batch, so a busy ring keeps at
// most RingSize taken items reachable (and its last overflow batch until the
// next Put), and an empty one none.
type Ring[T any] struct {
	head atomic.Uint32 // oldest item; CAS by owner and thieves
	_    [60]byte      // keep thieves' CAS traffic off the owner's tail
	tail atomic.Uint32 // one past the newest item; stored by the owner only
	// clean is the owner's private watermark: slots below it hold nothing
	// taken.
	clean uint32
	slots [RingSize]slot[T]
	spill [RingSize/2 + 1]*T // owner's scratch for Put's overflow batch
	// spilled says spill holds the last overflow batch, which the next Put,
	// or a Get that finds the ring empty, clears so that the ring does not
	// keep its items alive.
	spilled bool
}

// Put adds x at the tail. Owner only. x must not be nil.
//
// If the ring is full, Put neither blocks nor drops: it takes the older half
// of the ring off the head and returns it, followed by x, as one batch for
// the caller to move elsewhere (a scheduler's global queue). The batch
// aliases memory owned by the ring and is valid until the owner's next Put
// or Get. Put
// returns nil when x went into the ring. As with Deque.Push, the store that
// publishes x is sequentially consistent: the owner's next load cannot pass
// it.
//
// Cost: a couple of nanoseconds and no read-modify-write atomics; a full ring
// costs one CAS and a copy of RingSize/2 pointers.
func (r *Ring[T]) Put(x *T) []*T {
	if x == nil {
		panic("deque: Put of nil")
	}
	r.dropSpill()
	for {
		h := r.head.Load()
		t := r.tail.Load()
		if t-h < RingSize {
			r.slots[t%RingSize].Store(x)
			r.tail.Store(t + 1)
			return nil
		}
		if batch := r.putSlow(x, h, t); batch != nil {
			return batch
		}
		// A thief took items meanwhile, so there is room again.
	}
}

// dropSpill drops the last overflow batch's references, once it is no
// longer valid: at the owner's next Put, or at a Get that finds the ring
// empty. Owner only.
func (r *Ring[T]) dropSpill() {
	if r.spilled {
		clear(r.spill[:])
		r.spilled = false
	}
}

// putSlow claims the older half of a full ring and returns it with x.
func (r *Ring[T]) putSlow(x *T, h, t uint32) []*T {
	const n = RingSize / 2
	for i := uint32(0); i < n; i++ {
		r.spill[i] = r.slots[(h+i)%RingSize].Load()
	}
	if !r.head.CompareAndSwap(h, h+n) {
		clear(r.spill[:])
		return nil
	}
	r.spill[n] = x
	r.spilled = true
	return r.spill[:n+1]
}

// PutBatch adds the items of batch at the tail, in order, and publishes them
// with one store; it is for refilling a ring from another queue. Owner only.
// It adds as many as fit and returns how many that was. None of those may
// be nil: PutBatch panics, having stored none of them, if one is.
//
// Cost: one slot store per item plus one tail store for the lot.
func (r *Ring[T]) PutBatch(batch []*T) int {
	h := r.head.Load()
	t := r.tail.Load()
	n := min(len(batch), int(RingSize-(t-h)))
	for _, x := range batch[:n] {
		if x == nil { // checked first: stored, the items before it would stay reachable
			panic("deque: PutBatch of nil")
		}
	}
	for i, x := range batch[:n] {
		r.slots[(t+uint32(i))%RingSize].Store(x)
	}
	r.tail.Store(t + uint32(n))
	return n
}

// Get removes and returns the oldest item, or nil if the ring is empty.
// Owner only.
//
// Cost: one CAS on head, uncontended unless a thief is grabbing at that
// moment.
func (r *Ring[T]) Get() *T {
	for {
		h := r.head.Load()
		t := r.tail.Load()
		if t == h {
			r.sweep(h, t, RingSize) // idle: let thieves' loot be collected
			r.dropSpill()
			return nil
		}
		x := r.slots[h%RingSize].Load()
		if r.head.CompareAndSwap(h, h+1) {
			return x // the slot is cleared when the ring next runs empty
		}
	}
}

// StealHalf claims n - n/2 of the n items it sees with one CAS (runqgrab),
// returns the oldest of them to run at once and puts the others, oldest
// first, into dst. It returns nil if r was empty at some instant during the
// call. Any goroutine may call it on r, but only as the owner of dst, and dst
// must not be r. It claims no more than dst has room for. StealHalf panics,
// taking nothing, if dst is r or nil.
//
// Cost: one CAS plus a copy of the claimed items; it retries while the owner
// or other thieves move head.
func (r *Ring[T]) StealHalf(dst *Ring[T]) *T {
	switch dst {
	case r:
		panic("deque: StealHalf into the victim itself")
	case nil:
		panic("deque: StealHalf into nil")
	}
	dt := dst.tail.Load()
	room := RingSize - (dt - dst.head.Load()) + 1 // +1: the first item is returned, not stored
	for {
		h := r.head.Load()
		t := r.tail.Load()
		n := t - h
		if int32(n) <= 0 {
			return nil
		}
		n -= n / 2
		if n > RingSize/2 {
			continue // h and t were read at different moments: retry
		}
		n = min(n, room)
		first := r.slots[h%RingSize].Load()
		for i := uint32(1); i < n; i++ {
			dst.slots[(dt+i-1)%RingSize].Store(r.slots[(h+i)%RingSize].Load())
		}
		if r.head.CompareAndSwap(h, h+n) {
			dst.tail.Store(dt + n - 1)
			return first
		}
		for i := uint32(1); i < n; i++ {
			dst.slots[(dt+i-1)%RingSize].Store(nil) // drop references to items we did not win
		}
	}
}

// Len returns the number of items. Any goroutine; from any goroutine but the
// owner it is a snapshot that may be stale by the time it is used.
func (r *Ring[T]) Len() int {
	for {
		h := r.head.Load()
		t := r.tail.Load()
		if r.head.Load() == h { // consistent snapshot, as runqlen's callers need
			return int(t - h)
		}
	}
}

// sweep clears up to max taken slots below head, so their items can be
// collected; Get calls it when it finds the ring empty. A thief still reading
// one holds a stale head, so its CAS fails. Owner only.
func (r *Ring[T]) sweep(h, t uint32, max int) {
	if lowest := t - RingSize; int32(lowest-r.clean) > 0 {
		r.clean = lowest // older slots were overwritten by puts since
	}
	for ; max > 0 && int32(h-r.clean) > 0; max-- {
		if slot := &r.slots[r.clean%RingSize]; slot.Load() != nil {
			slot.Store(nil)
		}
		r.clean++
	}
}

package deque

import "sync/atomic"

// Deque is a Chase–Lev dynamic circular work-stealing deque of *T.
//
// One goroutine, the owner, pushes and pops at the bottom (LIFO, so the item
// it touches next is the one whose data is still in its cache). Any goroutine,
// a thief, takes from the top (FIFO: the oldest item, in divide-and-conquer
// usually the largest piece of work). Owner and thieves therefore meet only
// when the deque is nearly empty.
//
// # Algorithm
//
// The design is Chase & Lev, "Dynamic Circular Work-Stealing Deque" (SPAA
// 2005), in the form proven correct for weak memory by Lê, Pop, Cohen and
// Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory
// Models" (PPoPP 2013). Go's sync/atomic operations are sequentially
// consistent, which is stronger than every fence that paper places, so each of
// its fences is subsumed by the atomic it guards. Why each atomic is there:
//
//   - bottom is written only by the owner, but read by thieves, so it is an
//     atomic. In Pop the owner stores bottom-1 before it loads top; that
//     store→load order (the seq_cst fence in Lê et al.) is what makes a thief
//     that read the old bottom and the owner unable to both take the last
//     item without one of them seeing the other. Chase–Lev alone needs
//     only release order for Push's store (the paper's release fence
//     before a relaxed store; on x86 a plain store, where a sequentially
//     consistent one is a locked exchange that drains the store buffer).
//     It stays sequentially consistent for the scheduler built on the
//     deque: a producer pushes and then looks for a parked worker to wake,
//     while a worker about to park announces itself idle and then looks
//     at every deque. That is Dekker's store→load pattern, and with a
//     release store the producer's look could pass its own push, each side
//     missing the other: a task left behind a blocked owner while a worker
//     sleeps. (A plain store made a tree walk with a group per node 5%
//     faster, and was taken back for this reason.)
//   - top is advanced only by CompareAndSwap: by a thief to claim items, by
//     the owner to claim the very last item. A failed CAS means someone else
//     claimed first; the loser retries or reports empty.
//   - the buffer pointer is an atomic because the owner replaces it when it
//     grows or shrinks. A thief loads it after bottom, so a thief that sees
//     an item pushed after a resize also sees the resized buffer.
//   - slots are read atomically and written plainly (slot_norace.go), as
//     the Go runtime writes its run queues: a slot's write is ordered
//     before a thief's read by the bottom that publishes it. The one read
//     that races with a write is a thief's whose snapshot of top is stale
//     while the owner wraps around onto the slot or clears it; its CAS on
//     top then fails and the value is discarded. Under the race detector
//     the writes are atomic too, so that it stays quiet about that read.
//
// # Batch steals and the epoch
//
// StealHalf claims up to MaxBatch items with one CAS on top. Plain Chase–Lev
// is unsafe for that: a thief that read a stale (large) bottom can claim a
// range reaching the index the owner is popping without a CAS. top therefore
// carries a 32-bit epoch beside its index. When a Pop finds fewer than
// MaxBatch items between top and its own index, the owner bumps the epoch
// with a CAS before taking the item, which fails every claim computed from
// the old snapshot; a thief that reads the new epoch reads bottom after the
// owner's store, so its claim (at most n - n/2 of the n items it sees) stops
// short of the owner's index. When MaxBatch or more items separate them, no
// claim can reach the owner's index and Pop takes it with no read-modify-write,
// as in the original algorithm.
//
// A deque that no thief has ever batch-stolen from skips even that CAS: the
// first StealHalf sets batched before it reads top and bottom, and Pop reads
// batched after it has stored bottom. If Pop reads false, the thief's flag
// store, and so its reads of top and bottom, come after Pop's store of
// bottom (sync/atomic is sequentially consistent), so that thief sees the
// owner's item already gone, as in the single-steal proof. Indices are
// uint32 and compared by
// subtraction, so they may wrap around.
//
// # Memory
//
// The buffer starts with 32 slots, doubles when full and halves when a Pop
// leaves it less than a quarter full; a Pop that finds the deque empty
// returns it to 32 slots, so a burst does not pin memory whoever drained it. A slot
// the owner takes is cleared at once; slots emptied by thieves are cleared by
// the owner a few at a time on Push and all at once when a Pop finds the
// deque empty, so the garbage collector can reclaim taken items.
type Deque[T any] struct {
	// top packs the index of the oldest item (high 32 bits) with the owner's
	// epoch (low 32 bits). Thieves and the owner CAS it.
	top atomic.Uint64
	_   [56]byte // keep thieves' CAS traffic off the owner's line
	// bottom is the index one past the newest item. Written by the owner only.
	bottom atomic.Uint32
	buf    atomic.Pointer[buffer[T]]
	// clean is the owner's private watermark: slots below it that thieves
	// emptied have been cleared.
	clean uint32
	// batched is set, for good, by the first StealHalf; until then Pop needs
	// no CAS in the zone near top.
	batched atomic.Bool
	// The owner's line must not be shared with anything else either: deques
	// made one after another sit side by side in memory, and at 88 bytes
	// one deque's bottom shared a cache line with the next one's top, so
	// two owners that never touch each other's deque stalled each other on
	// every push and pop. At 128 bytes (a size class whose objects start
	// on 128-byte boundaries) a deque has its two lines to itself.
	_ [128 - 88]byte
}

// MaxBatch is the most items one StealHalf moves. It also bounds the zone
// near the top where the owner's Pop pays one CAS (see Deque).
const MaxBatch = 32

const minCap = 32

type buffer[T any] struct {
	mask  uint32
	slots []slot[T]
}

func newBuffer[T any](capacity int) *buffer[T] {
	return &buffer[T]{mask: uint32(capacity - 1), slots: make([]slot[T], capacity)}
}

func (b *buffer[T]) at(i uint32) *slot[T] { return &b.slots[i&b.mask] }

func pack(index, epoch uint32) uint64 { return uint64(index)<<32 | uint64(epoch) }

func unpack(w uint64) (index, epoch uint32) { return uint32(w >> 32), uint32(w) }

// New returns an empty deque. The goroutine that will call Push and Pop is
// its owner; ownership may be handed to another goroutine only through a
// synchronising operation (a channel send, a mutex). A Deque must be made
// by New: the zero value has no buffer, and its Push and Pop panic, as does
// a StealHalf into it. (A Ring's zero value is ready to use.)
func New[T any]() *Deque[T] {
	d := &Deque[T]{}
	d.buf.Store(newBuffer[T](minCap))
	return d
}

// Push adds x at the bottom. Owner only. x must not be nil.
//
// The store that publishes x is sequentially consistent: the owner's next
// load cannot pass it, so an owner that pushes and then looks for an idle
// thief to wake, while a thief announces itself idle and then looks at the
// deque, cannot miss each other.
//
// Cost: a few nanoseconds and no read-modify-write atomics (the publishing
// store is a locked exchange on x86); amortised O(1) when the buffer
// doubles.
func (d *Deque[T]) Push(x *T) {
	if x == nil {
		panic("deque: Push of nil")
	}
	b := d.bottom.Load()
	t, _ := unpack(d.top.Load())
	buf := d.buf.Load()
	if b-t >= uint32(len(buf.slots)) {
		buf = d.resize(buf, t, b, 2*len(buf.slots))
	}
	d.sweep(buf, t, b, 2)
	buf.at(b).Store(x)
	d.bottom.Store(b + 1)
}

// Pop removes and returns the newest item, or nil if the deque is empty.
// Owner only.
//
// Cost: a few nanoseconds with no read-modify-write atomics while MaxBatch or
// more items remain, or while no thief has ever used StealHalf on d; one CAS
// on top otherwise. Taking the last item always costs that CAS: a thief's
// Steal can reach it whatever the deque's history.
func (d *Deque[T]) Pop() *T {
	b := d.bottom.Load() - 1
	d.bottom.Store(b)
	for {
		tw := d.top.Load()
		t, epoch := unpack(tw)
		size := int32(b - t) // items that stay behind if we take index b
		if size < 0 {
			d.bottom.Store(t)
			if buf := d.buf.Load(); len(buf.slots) > minCap {
				// Thieves drained a burst: no Pop took an item to shrink
				// the buffer on the way down, so drop it now. Nothing is
				// left to copy or claim, and the old buffer's references
				// go with it.
				d.resize(buf, t, t, minCap)
			} else {
				d.sweep(buf, t, t, len(buf.slots))
			}
			return nil
		}
		buf := d.buf.Load()
		if size == 0 {
			return d.popLast(buf, tw, b)
		}
		if size < MaxBatch && d.batched.Load() && !d.top.CompareAndSwap(tw, pack(t, epoch+1)) {
			continue // a thief moved top: look again
		}
		x := buf.at(b).Load()
		buf.at(b).Store(nil)
		if len(buf.slots) > minCap && int(size) < len(buf.slots)/4 {
			d.resize(buf, t, b, len(buf.slots)/2)
		}
		return x
	}
}

// PopIf removes the newest item and reports true if it is x; otherwise,
// or if a thief takes x first, it leaves the deque as it was and reports
// false. Owner only. Unlike a Pop followed by a Push of what it returned,
// it never moves an item to another index (popping the last item moves
// the indices up), which owners that note Bottom rely on.
func (d *Deque[T]) PopIf(x *T) bool {
	b := d.bottom.Load() - 1
	t, _ := unpack(d.top.Load())
	if int32(b-t) < 0 || d.buf.Load().at(b).Load() != x {
		return false
	}
	return d.Pop() == x
}

// popLast races the thieves for the only item, at index b == top.
func (d *Deque[T]) popLast(buf *buffer[T], tw uint64, b uint32) *T {
	t, epoch := unpack(tw)
	x := buf.at(b).Load()
	won := d.top.CompareAndSwap(tw, pack(t+1, epoch))
	buf.at(b).Store(nil)
	d.bottom.Store(b + 1)
	if !won {
		return nil
	}
	return x
}

// Steal removes and returns the oldest item, or nil if the deque was empty at
// some instant during the call. Any goroutine.
//
// Cost: one CAS on success; it retries while other thieves win the race, so
// nil always means empty, never "lost a race".
func (d *Deque[T]) Steal() *T {
	for {
		tw := d.top.Load()
		t, epoch := unpack(tw)
		b := d.bottom.Load()
		if int32(b-t) <= 0 {
			return nil
		}
		x := d.buf.Load().at(t).Load()
		if d.top.CompareAndSwap(tw, pack(t+1, epoch)) {
			return x
		}
	}
}

// StealHalf claims n - n/2 of the n items it sees (at most MaxBatch) with one
// CAS, returns the oldest of them to be run at once and pushes the others,
// oldest first, onto dst. It returns nil if d was empty at some instant during
// the call. Any goroutine may call it on d, but only as the owner of dst, and
// dst must not be d. StealHalf panics, taking nothing, if dst is d, nil or
// not made by New.
//
// Cost: one CAS plus a copy of the claimed items; like Steal, it retries while
// other thieves win the race.
func (d *Deque[T]) StealHalf(dst *Deque[T]) *T {
	switch {
	case dst == d:
		panic("deque: StealHalf into the victim itself")
	case dst == nil:
		panic("deque: StealHalf into nil")
	case dst.buf.Load() == nil:
		panic("deque: StealHalf into a Deque not made by New")
	}
	if !d.batched.Load() {
		d.batched.Store(true) // before reading top and bottom: see Deque
	}
	for {
		tw := d.top.Load()
		t, epoch := unpack(tw)
		b := d.bottom.Load()
		n := int32(b - t)
		if n <= 0 {
			return nil
		}
		k := min(n-n/2, MaxBatch)
		buf := d.buf.Load()
		first := buf.at(t).Load()
		db, dbuf := dst.reserve(uint32(k - 1))
		for i := uint32(1); i < uint32(k); i++ {
			dbuf.at(db + i - 1).Store(buf.at(t + i).Load())
		}
		if d.top.CompareAndSwap(tw, pack(t+uint32(k), epoch)) {
			dst.bottom.Store(db + uint32(k) - 1)
			return first
		}
		for i := uint32(1); i < uint32(k); i++ {
			dbuf.at(db + i - 1).Store(nil) // drop references to items we did not win
		}
	}
}

// reserve makes room for n more items without publishing them, and returns
// the bottom index and buffer to write them at. Owner only.
func (d *Deque[T]) reserve(n uint32) (uint32, *buffer[T]) {
	b := d.bottom.Load()
	t, _ := unpack(d.top.Load())
	buf := d.buf.Load()
	for b-t+n > uint32(len(buf.slots)) {
		buf = d.resize(buf, t, b, 2*len(buf.slots))
	}
	return b, buf
}

// Bottom returns the index one past the newest item. Owner only. Indices
// grow by one per Push and wrap around: compare them by subtraction. An
// owner that notes Bottom can later tell the items pushed since (those at
// that index and above) from older ones, unless thieves took them.
func (d *Deque[T]) Bottom() uint32 { return d.bottom.Load() }

// Len returns the number of items. Any goroutine. From any goroutine but the
// owner it is a snapshot, the count at some instant during the call, that
// may be stale by the time it is used.
func (d *Deque[T]) Len() int {
	for {
		t, _ := unpack(d.top.Load())
		b := d.bottom.Load()
		// Re-read top, as Ring.Len does its head: between the two loads
		// thieves may move top past t while the owner pushes, and b - t
		// would then count items that were never in the deque together.
		// An unchanged index means top was still t when b was read, so
		// b - t is the count at that instant.
		if t2, _ := unpack(d.top.Load()); t2 != t {
			continue
		}
		if n := int32(b - t); n > 0 {
			return int(n)
		}
		return 0
	}
}

// resize copies items [t, b) into a new buffer of the given capacity and
// publishes it. Owner only. Thieves still reading the old buffer see the same
// values for every index they can claim.
func (d *Deque[T]) resize(old *buffer[T], t, b uint32, capacity int) *buffer[T] {
	buf := newBuffer[T](capacity)
	for i := t; i != b; i++ {
		buf.at(i).Store(old.at(i).Load())
	}
	d.buf.Store(buf)
	d.clean = t
	return buf
}

// sweep clears up to max slots below t that thieves emptied. A thief still
// reading such a slot holds a stale top, so its CAS fails and the nil it may
// read is discarded. Owner only; b is the current bottom.
func (d *Deque[T]) sweep(buf *buffer[T], t, b uint32, max int) {
	if lowest := b - uint32(len(buf.slots)); int32(lowest-d.clean) > 0 {
		d.clean = lowest // older slots were overwritten by pushes since
	}
	for ; max > 0 && int32(t-d.clean) > 0; max-- {
		buf.at(d.clean).Store(nil)
		d.clean++
	}
}

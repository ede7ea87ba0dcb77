package steal

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// injectQueue is the pool's global run queue. It has two parts:
//
//   - the submissions: every Submit, SubmitBatch, Go, TrySubmit and
//     Pool.Group child, in one unbounded FIFO of 16-byte entries kept in
//     segments. Producers never take a lock: one fetch-add claims a
//     position (SubmitBatch's, up to 64 in a row), and an atomic store of
//     each entry's function publishes it (the shape of crossbeam's
//     Injector and of Vyukov's segment queues). A plain Submit costs the
//     pool 16 bytes until a worker picks it up and builds the task's record.
//   - the spill: tasks moved out of a full ring, already records, in a
//     list of fixed-size chunks (sched_spill.go).
//
// Consumers (workers taking one task or a batch) hold mu, so only producers
// race with each other. Workers read the length without the lock to skip
// the queue cheaply when it is empty.
type injectQueue struct {
	_ [64]byte // keep producers' words off the lines of the fields before
	// tail is the number of positions claimed, shifted left by one; its
	// low bit is set once the queue is closed, after which a claim fails.
	tail    atomic.Uint64
	tailSeg atomic.Pointer[segment] // a segment at or before the tail
	_       [48]byte                // and off the consumers' line

	mu      sync.Mutex
	head    uint64   // next position to take; under mu
	clean   uint64   // entries before it are cleared or in a dropped segment; under mu
	headSeg *segment // the segment holding head; under mu
	// headPub is head, for len to read without mu. end is where close cut
	// the queue: positions from end on were claimed after it and are void.
	headPub atomic.Uint64
	end     atomic.Uint64

	// unwritten says the last take found the entry at the head claimed
	// but not yet written, and took nothing; under mu.
	unwritten bool

	spill      spillQueue   // tasks spilled by full rings; under mu
	spillN     atomic.Int64 // spill's length: written under mu, read without it
	spillFirst bool         // which part a take looks at first; under mu

	pool *Pool // for the records of taken submissions
}

// segSlots entries and the segment's header fill the allocator's 16 KiB
// size class exactly, so an entry costs 16 bytes and 1/1023 of a header.
const segSlots = 1023

// openEnd is end while the queue is open.
const openEnd = math.MaxUint64 >> 1

type segment struct {
	slots [segSlots]entry
	next  atomic.Pointer[segment]
	base  uint64 // position of slots[0]
}

// entry is one queued submission. fn is published last and atomically: an
// entry whose fn is nil is claimed but not yet written. What fn points to
// depends on x:
//
//   - x == nil: fn is a func(*Worker) to run with the pool's context;
//   - x == goMark: fn is a func() (Go), with the pool's context;
//   - x == recordMark: fn is a *task, a record made by its submitter;
//   - otherwise x describes the submission (see waitStamp).
type entry struct {
	fn unsafe.Pointer
	x  *waitStamp
}

// goMark and recordMark are the markers of entry.x.
var goMark, recordMark = new(waitStamp), new(waitStamp)

func (q *injectQueue) init(p *Pool) {
	q.pool = p
	s := &segment{}
	q.tailSeg.Store(s)
	q.headSeg = s
	q.end.Store(openEnd)
}

// put claims a position for e and publishes e there. It returns false,
// queuing nothing, once the queue is closed. First it times e if the
// position it is about to claim is sampled (sampledAt): read before the
// claim, that is the position e takes unless another producer claims in
// between, and the stamp is written before the claim, so that a worker at
// the head never waits on an entry whose producer is reading the clock.
func (q *injectQueue) put(e entry) bool {
	if p := q.pool; p.metrics.sampledAt(q.tail.Load() >> 1) {
		e = p.stamp(e)
	}
	s, pos, ok := q.claim(1)
	if !ok {
		return false
	}
	// publishAt, written out: Submit's path, and publishAt does not inline.
	s = q.segFor(s, pos)
	slot := &s.slots[pos-s.base]
	slot.x = e.x
	atomic.StorePointer(&slot.fn, e.fn)
	return true
}

// putBatch claims len(es) consecutive positions with one fetch-add and
// publishes the entries there in order, as put does one. It returns false,
// queuing none, once the queue is closed. A batch may reach into segments
// that do not exist yet: segFor makes each one whose first position is in
// the batch, as put does for a single claim. Like put, it first times the
// entries whose positions-to-be are sampled.
func (q *injectQueue) putBatch(es []entry) bool {
	p, next := q.pool, q.tail.Load()>>1
	for i, e := range es {
		if p.metrics.sampledAt(next + uint64(i)) {
			es[i] = p.stamp(e)
		}
	}
	s, pos, ok := q.claim(uint64(len(es)))
	if !ok {
		return false
	}
	for i, e := range es {
		s = q.publishAt(s, pos+uint64(i), e)
	}
	return true
}

// claim claims n consecutive positions with one fetch-add and returns the
// first, with a segment at or before it: the tail segment is read before
// the claim, so it cannot lie past the claimed position. ok is false once
// the queue is closed: positions claimed then are void.
func (q *injectQueue) claim(n uint64) (s *segment, pos uint64, ok bool) {
	s = q.tailSeg.Load()
	old := q.tail.Add(2*n) - 2*n
	return s, old >> 1, old&1 == 0
}

// publishAt writes e at the claimed position pos, walking from s to its
// segment, and returns that segment, for the next position. The entry's
// function is stored last, atomically: it is what tells a worker the
// entry is written.
func (q *injectQueue) publishAt(s *segment, pos uint64, e entry) *segment {
	s = q.segFor(s, pos)
	slot := &s.slots[pos-s.base]
	slot.x = e.x
	atomic.StorePointer(&slot.fn, e.fn)
	return s
}

// segFor walks from s to the segment holding pos. The producer that claimed
// a segment's first position makes that segment; a producer that needs it
// first yields until it exists, which takes that producer a few
// instructions, or, for a SubmitBatch, the writing of the entries of its
// batch before that position (at most 63). A batch never waits for a
// segment whose first position is its own, so the waits cannot form a
// cycle. (Workers never wait for it: they make it; see takeLocked.)
//
// The yield is also how producers make way for workers: with more
// producers than processors, the ones that reach a new segment early give
// their processors to the workers once a segment, which keeps the queue
// from running far ahead of them. Making the segment ahead of time, so
// that no producer yields, made many producers slower per task
// (BenchmarkSubmitProducers/p8).
func (q *injectQueue) segFor(s *segment, pos uint64) *segment {
	for pos >= s.base+segSlots {
		next := s.next.Load()
		if next == nil {
			if pos != s.base+segSlots {
				runtime.Gosched()
				continue
			}
			next = s.nextSeg()
		}
		q.tailSeg.CompareAndSwap(s, next)
		s = next
	}
	return s
}

// nextSeg returns the segment after s, making it if nobody has yet: the
// producer of the segment's first entry or a worker that reaches it
// first. When the two race, one segment wins and the other is garbage.
func (s *segment) nextSeg() *segment {
	if next := s.next.Load(); next != nil {
		return next
	}
	next := &segment{base: s.base + segSlots}
	if s.next.CompareAndSwap(nil, next) {
		return next
	}
	return s.next.Load()
}

// claimed is the number of positions claimed before the queue closed
// (every submission ever queued, taken or not). While close is in
// progress it may count void claims too; claimedExact waits it out.
func (q *injectQueue) claimed() uint64 {
	t := q.tail.Load()
	return min(t>>1, q.end.Load())
}

// claimedExact is claimed, exact even while close is in progress.
func (q *injectQueue) claimedExact() uint64 {
	if q.tail.Load()&1 == 0 {
		return q.claimed()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.claimed()
}

// close makes every later put fail and records where the queue ends.
func (q *injectQueue) close() {
	q.mu.Lock()
	old := q.tail.Or(1)
	if old&1 == 0 {
		q.end.Store(old >> 1)
	}
	q.mu.Unlock()
}

// len is a lock-free snapshot of the queue's length. It may count too many
// for a moment (entries being taken, or claimed and not yet written, or
// void claims while close is in progress), never too few: head is read
// before the tail.
func (q *injectQueue) len() int {
	h := q.headPub.Load()
	return int(q.claimed()-h) + int(q.spillN.Load())
}

// takeLocked moves up to len(out) published entries from the head into out
// and returns how many. It stops at an entry claimed but not yet written,
// unless it has nothing yet: then it looks again a few times, since its
// producer is about to write it, and gives up if the producer is slow
// (preempted between its claim and its store). It never yields while
// holding mu, which every other worker taking from the queue waits for:
// getBatch yields after releasing it, and tries again. Caller holds mu.
func (q *injectQueue) takeLocked(out []entry) int {
	k := 0
	// One look at the tail for the whole take: every read of it takes its
	// cache line from the producers, who write it for every entry.
	claimed := q.claimed()
	for k < len(out) && q.head < claimed {
		s := q.headSeg
		if q.head == s.base+segSlots {
			s = s.nextSeg()
			q.headSeg = s
		}
		slot := &s.slots[q.head-s.base]
		fn := atomic.LoadPointer(&slot.fn)
		if fn == nil && k == 0 {
			fn = awaitPublished(&slot.fn)
		}
		if fn == nil {
			break
		}
		out[k] = entry{fn: fn, x: slot.x}
		q.head++
		k++
	}
	q.headPub.Store(q.head)
	q.unwritten = k == 0 && q.head < claimed // empty-handed with entries claimed
	q.sweepLocked()
	return k
}

// publishSpins is how many times a worker looks again at an entry claimed
// but not yet written before it gives up for now: a running producer
// writes it within a few instructions (a SubmitBatch's, within its batch's
// 64 stores).
const publishSpins = 64

// awaitPublished returns *fn once its producer has written it, or nil if
// that takes more than publishSpins looks.
func awaitPublished(fn *unsafe.Pointer) unsafe.Pointer {
	for range publishSpins {
		if p := atomic.LoadPointer(fn); p != nil {
			return p
		}
	}
	return nil
}

// sweepLocked clears the taken entries of the head segment, so that the
// collector may have what they point to, up to the cache line that head is
// in: producers write the lines from there on, and clearing an entry there
// would take the line from a producer about to write its neighbour. The
// rest of a segment goes with the segment. Caller holds mu.
func (q *injectQueue) sweepLocked() {
	s := q.headSeg
	q.clean = max(q.clean, s.base)
	end := s.base + (q.head-s.base)&^3 // 4 entries a line; a segment starts on one
	for ; q.clean < end; q.clean++ {
		s.slots[q.clean-s.base] = entry{}
	}
}

// pushSpill appends tasks from a full ring, in order.
func (q *injectQueue) pushSpill(batch []*task) {
	q.mu.Lock()
	q.spill.push(batch)
	q.spillN.Add(int64(len(batch)))
	q.mu.Unlock()
}

// popSpillIntoLocked moves the oldest spilled tasks into dst, as many as
// wait and fit, with one update of the length the workers read, and
// returns how many. Caller holds mu.
func (q *injectQueue) popSpillIntoLocked(dst []*task) int {
	n := q.spill.popInto(dst)
	if n > 0 {
		q.spillN.Add(-int64(n))
	}
	return n
}

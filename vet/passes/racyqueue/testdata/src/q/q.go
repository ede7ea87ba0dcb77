// Package q holds run queues, some with racy fields; package user
// imports it to check that the usedAtomically fact crosses packages.
package q

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

type Task func()

// Queue is the user-space run queue of the classic example, half
// converted to atomics: the thieves claim with a CAS on head, while
// the owner still moves tail with plain writes.
type Queue struct {
	head, tail uint32 // want head:"usedAtomically" tail:"usedAtomically"
	buf        [256]Task
}

func (q *Queue) Push(t Task) {
	q.buf[q.tail%256] = t // want `plain read of Queue.tail, which is accessed with sync/atomic elsewhere`
	q.tail++              // want `plain write of Queue.tail`
}

func (q *Queue) Steal(out *Queue) int {
	for {
		h := atomic.LoadUint32(&q.head)
		t := atomic.LoadUint32(&q.tail)
		if t == h {
			return 0
		}
		n := (t - h) / 2
		if n == 0 {
			n = 1
		}
		for i := uint32(0); i < n; i++ {
			out.buf[(out.tail+i)%256] = q.buf[(h+i)%256] // want `plain read of Queue.tail`
		}
		if atomic.CompareAndSwapUint32(&q.head, h, h+n) {
			atomic.AddUint32(&out.tail, n)
			return int(n)
		}
	}
}

// Len reads a copy: the race, if any, was in making the copy.
func (q Queue) Len() int {
	return int(q.tail - q.head)
}

// snapshot passes its copy's address on: no longer private.
func snapshot(q Queue) uint32 {
	keep(&q)
	return q.tail // want `plain read of Queue.tail`
}

func keep(*Queue) {}

// spawned shares a local value with a goroutine.
func spawned() uint32 {
	var q Queue
	go func() { atomic.AddUint32(&q.tail, 1) }()
	return q.tail // want `plain read of Queue.tail`
}

// entries reads fields of copies taken from a slice.
func entries(qs []Queue) (n uint32) {
	for _, q := range qs {
		n += q.head
	}
	return n
}

// NewQueue sets fields of a value it has just made and not yet shared.
func NewQueue(start uint32) *Queue {
	q := &Queue{head: start}
	q.tail = start
	var r Queue
	r.head = start
	_ = r
	return q
}

// Reset writes under a lock, which does not stop lock-free atomic
// readers from racing with it.
type Locked struct {
	mu sync.Mutex
	Queue
}

func (l *Locked) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.head != 0 { // a read under the lock: writers hold it too
		l.head = 0 // want `plain write of Queue.head`
	}
}

func (l *Locked) headLocked() uint32 {
	return l.head
}

// Deque uses atomic types: nothing to report.
type Deque struct {
	head, tail atomic.Uint32
	buf        [256]Task
}

func (d *Deque) Push(t Task) {
	tail := d.tail.Load()
	d.buf[tail%256] = t
	d.tail.Store(tail + 1)
}

// Counter's field is only ever used with sync/atomic.
type Counter struct {
	n int64 // want n:"usedAtomically"
}

func (c *Counter) Inc()        { atomic.AddInt64(&c.n, 1) }
func (c *Counter) Get() int64  { return atomic.LoadInt64(&c.n) }
func (c *Counter) Ptr() *int64 { return &c.n } // the address escapes; not a plain access here

// Exported has an exported field used atomically here and plainly in
// package user.
type Exported struct {
	Stolen uint64 // want Stolen:"usedAtomically"
	Plain  uint64
}

func (e *Exported) Steal() { atomic.AddUint64(&e.Stolen, 1); e.Plain++ }

// Ring is generic: fields of its instances are the field of Ring.
type Ring[T any] struct {
	next unsafe.Pointer // want next:"usedAtomically"
	vals []T
}

func (r *Ring[T]) Next() unsafe.Pointer { return atomic.LoadPointer(&r.next) }

func (r *Ring[T]) Peek() unsafe.Pointer { return r.next } // want `plain read of Ring.next`

func useRing() {
	var r Ring[int]
	atomic.StorePointer(&r.next, nil)
	p := &Ring[string]{}
	_ = p.next // built here: not shared yet
}

func shared(r *Ring[int]) bool { return r.next == nil } // want `plain read of Ring.next`

// hammerLocal is how single-goroutine tests of sync/atomic look: the
// address of the local only ever goes to sync/atomic.
func hammerLocal() bool {
	var x struct {
		before int32
		i      int32 // want i:"usedAtomically"
	}
	atomic.AddInt32(&x.i, 1)
	return x.i == 1 && x.before == 0
}

// hammerShared hands the address to goroutines.
func hammerShared() bool {
	var x struct{ i int32 } // want i:"usedAtomically"
	p := &x.i
	go func() { atomic.AddInt32(p, 1) }()
	atomic.AddInt32(&x.i, 1)
	return x.i == 2 // want `plain read of field i`
}

type eface struct {
	typ, data unsafe.Pointer // want typ:"usedAtomically" data:"usedAtomically"
}

// load looks into its own result through a pointer, as
// sync/atomic.Value does.
func load(v *any) (val any) {
	vp := (*eface)(unsafe.Pointer(v))
	typ := atomic.LoadPointer(&vp.typ)
	vlp := (*eface)(unsafe.Pointer(&val))
	vlp.typ = typ
	vlp.data = atomic.LoadPointer(&vp.data)
	var i any
	(*eface)(unsafe.Pointer(&i)).typ = typ
	return
}

// store writes through a pointer to shared memory.
func store(v *any, typ unsafe.Pointer) {
	vp := (*eface)(unsafe.Pointer(v))
	vp.typ = typ // want `plain write of eface.typ`
}

// Init sets a queue up before it is shared.
func (q *Queue) Init(start uint32) {
	q.head, q.tail = start, start
}

// newFromShared is a method named like a constructor, on a shared value.
func (q *Queue) newFromShared() *Queue {
	return NewQueue(q.tail) // want `plain read of Queue.tail`
}

// stats is embedded in several types: atomic in client, under a lock
// in account. The two are different memory.
type stats struct {
	inMsgs int64 // want inMsgs:"usedAtomically"
}

type client struct{ stats }

type account struct {
	st struct {
		sync.Mutex
		stats
	}
}

func (c *client) in() { atomic.AddInt64(&c.inMsgs, 1) }

func (a *account) in() {
	a.st.Lock()
	a.st.inMsgs++
	a.st.Unlock()
}

// reset goes through the declaring type, which may point into a client.
func (s *stats) reset() {
	s.inMsgs = 0 // want `plain write of stats.inMsgs`
}

// ring is used atomically through its own type and plainly through a
// type that embeds it.
type ring struct {
	tail uint32 // want tail:"usedAtomically"
}

type worker struct{ ring }

func (r *ring) load() uint32 { return atomic.LoadUint32(&r.tail) }

func (w *worker) push() {
	w.tail++ // want `plain write of ring.tail`
}

// syncClosure fills a local through a closure it calls itself.
func syncClosure(c *Counter) int64 {
	var last Counter
	keep := func() { last.n = atomic.LoadInt64(&c.n) }
	keep()
	defer func() { last.n = 0 }()
	return last.n
}

// asyncClosure hands the closure to a goroutine.
func asyncClosure(c *Counter) int64 {
	var last Counter
	keep := func() { atomic.StoreInt64(&last.n, atomic.LoadInt64(&c.n)) }
	go keep()
	return last.n // want `plain read of Counter.n`
}

// totals holds stats by value in named fields, under its lock.
type totals struct {
	sync.Mutex
	stats
	rt stats
}

func (t *totals) add(n int64) {
	t.Lock()
	t.inMsgs += n
	t.rt.inMsgs += n
	t.Unlock()
}

// owner holds a ring by pointer: its memory is the ring's own.
type owner struct{ *ring }

func (o *owner) push() {
	o.tail++ // want `plain write of ring.tail`
}

// An alias of Counter, whose name sorts first: the message names the
// struct type, not the alias.
type ACounter = Counter

func readAlias(c *ACounter) int64 {
	return c.n // want `plain read of Counter\.n,`
}

package steal

import (
	"runtime"
	"unsafe"
)

// getOne takes one task, or nil. A worker that has its handle uses
// getOneFor instead, which allocates records in slabs.
func (q *injectQueue) getOne() *task { return q.getOneFor(nil) }

// getOneFor takes one task for c (nil: for any worker), or nil.
func (q *injectQueue) getOneFor(c *core) *task {
	if q.len() == 0 {
		return nil
	}
	var e [1]entry
	var t [1]*task
	q.mu.Lock()
	ns, ne := q.takeLocked2(t[:], e[:], 1)
	q.mu.Unlock()
	if ne == 1 {
		t[0] = q.pool.record(c, e[0])
	} else if ns == 0 {
		return nil
	}
	q.pool.pickedUp(t[:])
	return t[0]
}

// getBatch takes up to min(128, len/workers + 1) tasks, and with
// WithMaxQueued(n) at most max(1, n/workers): it returns the first
// to run now and puts the rest into c's ring (which is empty: the caller
// looked) with one publishing store, as the runtime's globrunqget does.
// Submissions become records here, outside the lock.
//
// If the entry at the head is claimed but its producer has not written it
// (see takeLocked), getBatch yields the processor, without the lock, and
// tries again: the producer was most likely preempted between its claim
// and its store, and is waiting for a processor to finish.
func (q *injectQueue) getBatch(c *core, workers int) *task {
	if q.len() == 0 {
		return nil
	}
	var ents [128]entry
	var batch [128]*task
	var ns, ne int
	for {
		q.mu.Lock()
		n := min(q.len()/workers+1, len(batch))
		if mq := q.pool.maxQueued; mq > 0 {
			// What a worker holds, picked up but not started, is out of
			// the backlog's count: keep it within WithMaxQueued's bound.
			n = min(n, max(1, int(mq)/workers))
		}
		ns, ne = q.takeLocked2(batch[:], ents[:], n)
		stalled := ns+ne == 0 && q.unwritten
		q.mu.Unlock()
		if !stalled {
			break
		}
		runtime.Gosched()
	}
	k := ns
	for _, e := range ents[:ne] {
		batch[k] = q.pool.record(c, e)
		k++
	}
	if k == 0 {
		return nil
	}
	q.pool.pickedUp(batch[:k])
	first := batch[0]
	if k == 1 {
		return first // PutBatch of nothing would still store the ring's tail
	}
	if put := c.ring.PutBatch(batch[1:k]); put < k-1 { // cannot happen with an empty ring; stay safe
		q.pushSpill(batch[1+put : k])
	}
	return first
}

// pickedUp takes the tasks in ts, just taken from the inject queue, out of
// the WithMaxQueued backlog with one atomic add for the lot, and wakes the
// Submits waiting for room if that made some. Each task is released once:
// its external mark is cleared here, so a task that later moves through
// the spill list is not counted again.
func (p *Pool) pickedUp(ts []*task) {
	if p.maxQueued == 0 {
		return
	}
	var n int64
	for _, t := range ts {
		if t.external {
			t.external = false
			n++
		}
	}
	if n > 0 {
		p.releaseQueued(n)
	}
}

// takeLocked2 takes up to n tasks, spilled ones into spill and submissions
// into ents, looking at the two parts in turn so that neither starves the
// other. Caller holds mu.
func (q *injectQueue) takeLocked2(spill []*task, ents []entry, n int) (ns, ne int) {
	q.spillFirst = !q.spillFirst
	if !q.spillFirst {
		ne = q.takeLocked(ents[:n])
	}
	ns = q.popSpillIntoLocked(spill[:n-ne])
	if q.spillFirst && ns < n {
		ne = q.takeLocked(ents[:n-ns])
	}
	return ns, ne
}

// record returns the task record for a taken submission, made now for all
// but those whose submitter made one: the pool holds only the 16-byte entry
// while the task waits. c, if not nil, is the worker taking it.
func (p *Pool) record(c *core, e entry) *task {
	if e.x == recordMark {
		return (*task)(e.fn)
	}
	var t *task
	switch {
	case c != nil && e.x == goMark && len(c.freeGo) > 0:
		t = c.freeGo[len(c.freeGo)-1] // a Go function's, zeroed (reusable)
		c.freeGo = c.freeGo[:len(c.freeGo)-1]
	case c != nil:
		t = c.newRecord()
	default:
		t = &task{}
	}
	*(*unsafe.Pointer)(unsafe.Pointer(&t.fn)) = e.fn // a func(*Worker), or a func() if goFn
	t.ctx, t.sub, t.external = p.ctx, subQueued, p.maxQueued > 0
	switch x := e.x; x {
	case nil:
		t.lazy = lazyMay // Submit without a context of its own
	case goMark:
		t.goFn = true
	default:
		t.goFn = x.goFn
		t.external = t.external && !x.forced
		if x.Context != nil {
			t.ctx, t.own = x.Context, true
		} else if !t.goFn {
			t.lazy = lazyMay
		}
		if x.at >= 0 { // timed: x is the record's context until execute unwraps it
			x.Context, t.ctx, t.sub = t.ctx, x, subSampled
		}
	}
	return t
}

// recordSlab is how many records a worker allocates at once for the
// submissions it takes, for Worker.Spawn and for group children: one
// allocation per 10 tasks instead of one per task. A record that has been
// a handle is never reused, so a handle kept past its task still fails its
// check (see Worker); only the records of Pool.Go's functions, which no
// user code sees, go back to their worker (reusable). A slab lives while
// any of its records is referenced. 10 records are 480 bytes, a size class
// of their own. Bigger slabs save few
// allocations more and cost the collector: an object of more than 512
// bytes carries an allocation header and is scanned on its own, while the
// collector scans small objects a whole span at a time (Go 1.26's default
// collector). Larger slabs measured slower (docs/costs.md).
const recordSlab = 10

// newRecord returns a fresh record from c's slab, for a submission c takes,
// a Spawn or a group child. Only c's own goroutine may call it.
func (c *core) newRecord() *task {
	if len(c.slab) == 0 {
		c.slab = make([]task, recordSlab)
	}
	t := &c.slab[0]
	c.slab = c.slab[1:]
	return t
}

package steal

import "time"

// For calls body(w, i) for every i in [lo, hi), in parallel, and returns
// when all calls are done. It must be called by the task that received w;
// every call sees that task's context.
//
// For splits the range lazily (lazy binary splitting, Tzannes et al., PPoPP
// 2010): before each iteration it looks at w's fork-join deque, and only if
// it is empty, that is, only if thieves have taken what was offered, it
// pushes the upper half of the remaining range for them and keeps the lower
// half. With no idle worker, 10 iterations cost 10 calls and a few pushes;
// with idle workers, 10 million cost a few thousand tasks. There is no grain
// size to tune. Like Fork2, For allocates nothing: a half it offers is a
// record from a per-worker free list (one that a thief took is not reused,
// so the next is made anew).
//
// A panic in body stops the part of the loop that was running it; the
// parts already split off still run (here or on their thieves), and the
// first panic is re-raised in the caller once they have all finished. A
// runtime.Goexit in body likewise ends the loop, and the task, only once
// they have finished.
func For(w *Worker, lo, hi int, body func(w *Worker, i int)) {
	if w == nil {
		nilWorker("For")
	}
	if body == nil {
		nilFunc("For")
	}
	forRange(w, lo, hi, nil, body)
}

// ForRange is For for bodies that want whole sub-ranges: body(w, lo, hi)
// is called on disjoint sub-ranges that together cover [lo, hi). A
// sub-range starts at one element and doubles while nobody steals and the
// last one took under 25 µs, so the check for thieves is amortised over
// cheap bodies without keeping a thief waiting behind an expensive one.
func ForRange(w *Worker, lo, hi int, body func(w *Worker, lo, hi int)) {
	if w == nil {
		nilWorker("ForRange")
	}
	if body == nil {
		nilFunc("ForRange")
	}
	forRange(w, lo, hi, body, nil)
}

// forRange is ForRange with either body (each nil: For's body is called
// for every index of a sub-range). The halves it offers are forTask
// records from w's free list, not closures: a call allocates nothing
// unless a thief takes a half, whose record is then not reused.
func forRange(w *Worker, lo, hi int, body func(w *Worker, lo, hi int), each func(w *Worker, i int)) {
	c := w.core()
	var h offered
	defer h.unwind(c, w) // finishes the halves if a Goexit, which nothing recovers, ends the loop
	var pe *PanicError
	for chunk := 1; lo < hi; {
		if mid, ok := splitAt(lo, hi); ok && h.n < len(h.parts) && c.offerSplit() {
			ft := c.getForTask(mid, hi, body, each, w)
			c.jobs.Push(&ft.task)
			c.pool.wakep()
			h.parts[h.n] = ft
			h.n++
			hi, chunk = mid, 1
			continue
		}
		end := chunkEnd(lo, hi, chunk)
		c.stepped()
		start := time.Now()
		if pe = callRange(w, lo, end, body, each); pe != nil {
			break
		}
		lo = end
		if time.Since(start) < chunkTime {
			chunk = min(2*chunk, maxChunk)
		}
	}
	if p := h.join(c, w); pe == nil {
		pe = p
	}
	if pe != nil {
		panic(pe)
	}
}

// callRange calls body(w, lo, hi), or each for every index of [lo, hi),
// and returns its panic, if any, as a *PanicError.
func callRange(w *Worker, lo, hi int, body func(w *Worker, lo, hi int), each func(w *Worker, i int)) (pe *PanicError) {
	defer func() {
		if r := recover(); r != nil {
			pe = newPanicError(r, w.c.id)
		}
	}()
	if each == nil {
		body(w, lo, hi)
		return nil
	}
	for i := lo; i < hi; i++ {
		each(w, i)
	}
	return nil
}

// forTask is the record of a half that ForRange offers to thieves: its
// fn, bound once when the record is made, runs forRange on [lo, hi).
type forTask struct {
	joinTask
	lo, hi int
	body   func(w *Worker, lo, hi int)
	each   func(w *Worker, i int)
}

func (ft *forTask) run(w *Worker) { forRange(w, ft.lo, ft.hi, ft.body, ft.each) }

// getForTask takes a forTask off c's free list (shared with Fork2's and
// Join2's records), or makes one, and makes it a part of from's task.
func (c *core) getForTask(lo, hi int, body func(w *Worker, lo, hi int), each func(w *Worker, i int), from *Worker) *forTask {
	var ft *forTask
	if n := len(c.freeForks); n > 0 {
		if f, ok := c.freeForks[n-1].(*forTask); ok {
			ft = f
			c.freeForks = c.freeForks[:n-1]
		}
	}
	if ft == nil {
		ft = &forTask{}
		ft.done = &ft.latch
		ft.fn = ft.run
		ft.part = true
	}
	ft.lo, ft.hi, ft.body, ft.each = lo, hi, body, each
	ft.forkedFrom(from)
	return ft
}

// offered is what ForRange offered to thieves: the upper halves it split
// off, in the order it pushed them, at most one per halving of the range.
type offered struct {
	parts [64]*forTask
	n     int
}

// join finishes the offered halves, last offered first (the deque's
// order): it runs each that no thief took here and waits for the others.
// It returns the first panic among them, and drops each half from o
// before finishing it, so that if one run here calls Goexit, unwind can
// finish the rest.
func (o *offered) join(c *core, w *Worker) (first *PanicError) {
	for o.n > 0 {
		o.n--
		if pe := c.joinForRecover(w, o.parts[o.n]); first == nil {
			first = pe
		}
	}
	return first
}

// unwind is deferred by ForRange. It does nothing once join has finished
// every half; if a Goexit (in body, or in a half join ran here) left halves
// unfinished, it finishes them before the Goexit goes on, as Join does for
// its second half: For returns when all its calls are done, however one
// of them ended. A half that calls Goexit too ends this call, and the
// unwind it defers goes on with the rest. Their panics are dropped: the
// Goexit wins.
func (o *offered) unwind(c *core, w *Worker) {
	if o.n == 0 {
		return
	}
	defer o.unwind(c, w)
	o.join(c, w)
}

// ForRange grows a sub-range by doubling only while the last one took less
// than chunkTime, so a thief that turns up waits at most about that long
// for the owner to look for it, however slow or fast the body is; maxChunk
// bounds the growth for trivially cheap bodies.
const (
	chunkTime = 25 * time.Microsecond
	maxChunk  = 1 << 16
)

// ForRange's index arithmetic works on lengths as uints: [math.MinInt,
// math.MaxInt) holds 2^64-1 indices on a 64-bit platform, which hi-lo
// cannot hold as an int, and lo+chunk overflows near math.MaxInt. uint(hi)-uint(lo) is the exact
// length for lo <= hi, and adding a part of it to lo stays within [lo, hi].

// splitAt returns where ForRange cuts [lo, hi), lo <= hi, into two
// non-empty halves, the upper one no smaller, or false if the range has
// fewer than two indices.
func splitAt(lo, hi int) (mid int, ok bool) {
	n := uint(hi) - uint(lo)
	return lo + int(n/2), n > 1
}

// chunkEnd returns the end of the sub-range of at most chunk (>= 1) indices
// that starts at lo, lo < hi.
func chunkEnd(lo, hi, chunk int) int {
	return lo + int(min(uint(chunk), uint(hi)-uint(lo)))
}

// offerSplit reports whether a thief could take a split now: there is more
// than one worker and w's deque has nothing left for thieves to take.
func (c *core) offerSplit() bool {
	return len(c.pool.workers) > 1 && c.jobs.Len() == 0
}

// joinBack finishes a task c pushed for the task whose handle is w: if no
// thief took it, it calls it here, as part of w's task, directly, with no
// latch traffic, so a panic in it propagates unchanged, and reports inline;
// else it returns the thief's panic (or Goexit), if any. Only a task that
// ran inline may be recycled.
func (c *core) joinBack(w *Worker, j *joinTask) (pe *PanicError, inline bool) {
	if c.takeBack(j) {
		c.stats.ran.inc()
		j.fn(w)
		return nil, true
	}
	pe, _ = j.latch.err.(*PanicError) // a part is never skipped
	return pe, false
}

// takeBack pops j back off w's deque and reports true if no thief took it,
// for the caller to run; otherwise it helps until the thief has finished j
// and reports false.
func (c *core) takeBack(j *joinTask) bool {
	// PopIf, not Pop and a Push back of a task that is not j: a task left
	// behind beneath j (a future not waited for yet) must keep its index,
	// or a waiting task's mark would take it for its own (see "Waiting"
	// in sched.go).
	if c.jobs.PopIf(&j.task) {
		return true
	}
	c.waitThrough(&j.latch)
	return false
}

// joinForRecover is joinBackRecover for a half ForRange offered: one that
// ran here goes back to the free list, cleared of this call.
func (c *core) joinForRecover(w *Worker, ft *forTask) *PanicError {
	pe, inline := c.joinBackCatch(w, &ft.joinTask)
	if inline {
		ft.body, ft.each, ft.ctx, ft.latch.err, ft.latch.grp, ft.latch.joiner = nil, nil, nil, nil, nil, nil
		c.putForkTask(ft)
	}
	return pe
}

// joinBackRecover is joinBack that also catches a panic of a task run
// here, so that its caller (a sequence map's join) can finish every part
// before it re-raises; a part that ran here is recycled.
func (c *core) joinBackRecover(w *Worker, j *joinTask) *PanicError {
	pe, inline := c.joinBackCatch(w, j)
	if inline {
		c.putJoinTask(j)
	}
	return pe
}

// joinBackCatch is joinBack returning a panic of the task run here as a
// *PanicError; inline is false then, and the task is not to be recycled.
func (c *core) joinBackCatch(w *Worker, j *joinTask) (pe *PanicError, inline bool) {
	defer func() {
		if r := recover(); r != nil {
			pe = newPanicError(r, c.id)
		}
	}()
	return c.joinBack(w, j)
}

package steal

import "unsafe"

// Join runs a and b, possibly in parallel, and returns when both are done.
// It must be called by the task that received w. Both see that task's
// context, and both run even if it is done: they are part of the task.
//
// b is pushed on w's fork-join deque, where an idle worker may steal it; a
// runs at once on this goroutine. Then, if no thief took b, Join pops it
// back and calls it here; if a thief did, Join helps (runs other tasks)
// until the thief has finished b. Both always run, even if one panics. A
// panic in a, or in b when b ran here, propagates from Join unchanged, after
// both are done (a's first); a panic in b on a thief is re-raised here as a
// *PanicError carrying the thief's stack.
//
// Join offers b to thieves only while w's deque holds fewer than offerBelow
// (4) tasks (lazy task creation: Tzannes et al., "Lazy Scheduling", TOPLAS
// 2014). With that many queued, idle workers already have older, and in
// divide-and-conquer code larger, pieces of this worker's work to steal, so
// Join just calls a, then b: a few nanoseconds, no allocation of its own.
// As soon as thieves drain the deque below offerBelow, Join offers splits
// again. No grain size is involved: the cut-off adapts to whether anybody
// is stealing.
//
// Cost: Join itself allocates nothing: the record for b comes from a
// per-worker free list, and with no thief involved it costs a deque push
// and pop with no read-modify-write atomics, or, with the deque long, a
// length check. The caller's closures cost more. b escapes (a thief may
// run it), so Go allocates b's closure on the heap on every call, and with
// it every variable b captures by reference, such as the result it writes:
// fib written as Join(w, func(w) { a = fib(w, n-1) }, func(w) { b =
// fib(w, n-2) }) makes two allocations per call, which are nearly all of
// its time and make the garbage collector run often: with closures, the
// allocations are the cost, not the scheduler (docs/costs.md measures
// both). a does not
// escape and costs nothing. Where both halves call the same function,
// use Fork2 (with results) or Join2 (without): they take a plain function
// and its two arguments, and allocate nothing. Join suits halves that
// differ, or that are not hot.
func Join(w *Worker, a, b func(w *Worker)) {
	if w == nil {
		nilWorker("Join")
	}
	if a == nil || b == nil {
		nilFunc("Join")
	}
	c := w.coreInline()
	c.stepped()
	if c.jobs.Len() < offerBelow {
		joinOffer(w, c, a, b)
		return
	}
	// The deque is long: run both here, without offering (see above).
	aDone := false
	defer func() {
		if !aDone {
			callRecover(w, b) // a's panic wins; b's, if any, is dropped
		}
	}()
	a(w)
	aDone = true
	b(w)
}

// joinOffer is Join that offers b to thieves. The offering path is a
// function of its own, and the other one written out in Join (and in Fork2
// and Join2), because nearly every fork of deep recursion takes the other:
// one call and one frame less there is measurable on deep recursion
// (docs/costs.md).
func joinOffer(w *Worker, c *core, a, b func(w *Worker)) {
	w.checkCurrent(c)
	j := c.getJoinTask(b, w)
	c.jobs.Push(&j.task)
	c.pool.wakep()
	aDone := false
	defer c.unwindJoin(w, j, &aDone)
	a(w)
	aDone = true // from here on b is joinBack's business, panics included
	pe, inline := c.joinBack(w, j)
	if inline {
		c.putJoinTask(j)
	}
	if pe != nil {
		panic(pe)
	}
}

// offerBelow is the deque length under which Join pushes its second half
// for thieves; at or above it, Join runs both halves itself.
const offerBelow = 4

// unwindJoin is deferred by Join. It does nothing unless a panicked, and
// then still gets b run (here or by its thief) before the panic goes on.
func (c *core) unwindJoin(w *Worker, j *joinTask, aDone *bool) {
	if !*aDone && c.takeBack(j) {
		callRecover(w, j.fn) // a's panic wins; b's, if any, is dropped
	}
}

// joinTask is a fork-join task with its own latch, so that Join and Spawn
// allocate one object.
type joinTask struct {
	task
	latch latch
}

// getJoinTask returns a reset joinTask for fn, a part of the task whose
// handle is from, from w's free list.
func (c *core) getJoinTask(fn func(*Worker), from *Worker) *joinTask {
	var j *joinTask
	if n := len(c.freeJoins); n > 0 {
		j = c.freeJoins[n-1]
		c.freeJoins = c.freeJoins[:n-1]
	} else {
		j = &joinTask{}
		j.done = &j.latch
		j.part = true
	}
	j.fn = fn
	j.forkedFrom(from)
	return j
}

// forkedFrom makes j a part of the task whose handle is w: it sees w's
// context, reports to w's group, and counts as part of whatever w's task
// is waited for by (w always waits for its parts: see "Waiting" in
// sched.go). j is not yet published, so a plain store will do.
func (j *joinTask) forkedFrom(w *Worker) {
	j.ctx, j.latch.grp = w.forkCtx(), w.group()
	j.latch.joiner = unsafe.Pointer(w.done)
	j.latch.pending.Store(1)
}

// putJoinTask recycles j. Only a task that never left w may be recycled: a
// thief that ran one may still be touching its latch.
func (c *core) putJoinTask(j *joinTask) {
	j.fn, j.ctx, j.latch.err, j.latch.grp, j.latch.joiner = nil, nil, nil, nil, nil
	if len(c.freeJoins) < maxFreeJoins {
		c.freeJoins = append(c.freeJoins, j)
	}
}

// maxFreeJoins bounds a worker's free list: deeper recursion than this
// allocates, which is cheap next to the work it implies.
const maxFreeJoins = 256

// callRecover runs fn and returns its panic, if any, as a *PanicError.
func callRecover(w *Worker, fn func(*Worker)) (pe *PanicError) {
	defer func() {
		if r := recover(); r != nil {
			pe = newPanicError(r, w.c.id)
		}
	}()
	fn(w)
	return nil
}

package steal

// Join2 calls f(w, x) and f(w, y), possibly in parallel, and returns when
// both are done: Fork2 for functions with no result, so that a quicksort
// need not return a struct{}. Like Fork2 it allocates nothing: f is a plain
// function, not a closure, and the record for f(w, y) comes from a
// per-worker free list. It must be called by the task that received w.
//
// Scheduling and panics are as for Join: f(w, y) is offered to thieves
// while w's deque is short, f(w, x) runs here, then f(w, y) runs here
// unless a thief took it, in which case Join2 helps until it is done. Both
// always run, even if one panics; a panic in f(w, x), or in f(w, y) run
// here, goes on unchanged, one on a thief as a *PanicError.
//
//	func quicksort(w *steal.Worker, s []int) {
//		if len(s) < 2 {
//			return
//		}
//		p := partition(s)
//		steal.Join2(w, quicksort, s[:p], s[p+1:])
//	}
func Join2[T any](w *Worker, f func(*Worker, T), x, y T) {
	if w == nil {
		nilWorker("Join2")
	}
	if f == nil {
		nilFunc("Join2")
	}
	c := w.coreInline()
	c.stepped()
	if c.jobs.Len() < offerBelow {
		join2Offer(w, c, f, x, y)
		return
	}
	// The deque is long: run both here, without offering (as Fork2 does).
	xDone := false
	defer func() {
		if !xDone {
			callRecover(w, func(w *Worker) { f(w, y) }) // x's panic wins
		}
	}()
	f(w, x)
	xDone = true
	f(w, y)
}

// join2Offer is Join2 that offers f(w, y) to thieves.
func join2Offer[T any](w *Worker, c *core, f func(*Worker, T), x, y T) {
	w.checkCurrent(c)
	jt := getJoin2Task[T](c)
	jt.f, jt.arg = f, y
	jt.forkedFrom(w)
	c.jobs.Push(&jt.task)
	c.pool.wakep()
	xDone := false
	defer c.unwindJoin(w, &jt.joinTask, &xDone)
	f(w, x)
	xDone = true
	pe, inline := c.joinBack(w, &jt.joinTask)
	if inline {
		var zero T
		jt.f, jt.arg, jt.ctx, jt.latch.grp, jt.latch.joiner = nil, zero, nil, nil, nil // keep nothing of this call alive
		c.putForkTask(jt)
	}
	if pe != nil {
		panic(pe)
	}
}

// join2Task is Join2's record for its second call: a fork-join task whose
// fn, bound once when the record is made, calls f(arg).
type join2Task[T any] struct {
	joinTask
	f   func(*Worker, T)
	arg T
}

func (jt *join2Task[T]) run(w *Worker) { jt.f(w, jt.arg) }

// getJoin2Task takes a record of this type off w's free list (shared with
// Fork2's), or makes one.
func getJoin2Task[T any](w *core) *join2Task[T] {
	if n := len(w.freeForks); n > 0 {
		if jt, ok := w.freeForks[n-1].(*join2Task[T]); ok {
			w.freeForks = w.freeForks[:n-1]
			return jt
		}
	}
	jt := &join2Task[T]{}
	jt.done = &jt.latch
	jt.fn = jt.run
	jt.part = true
	return jt
}

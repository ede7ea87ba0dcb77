package steal

// Fork2 calls f(w, x) and f(w, y), possibly in parallel, and returns both
// results. It is Join for the common divide-and-conquer shape, the same
// function on two halves, and allocates nothing: f is a plain function, not
// a closure, and the record for f(w, y) comes from a per-worker free list.
// It must be called by the task that received w.
//
// Scheduling and panics are as for Join: f(w, y) is offered to thieves while
// w's deque is short, f(w, x) runs here, then f(w, y) runs here unless a
// thief took it, in which case Fork2 helps until it is done.
//
//	func fib(w *steal.Worker, n int) int {
//		if n < 2 {
//			return n
//		}
//		a, b := steal.Fork2(w, fib, n-1, n-2)
//		return a + b
//	}
func Fork2[T, R any](w *Worker, f func(*Worker, T) R, x, y T) (rx, ry R) {
	if w == nil {
		nilWorker("Fork2")
	}
	if f == nil {
		nilFunc("Fork2")
	}
	c := w.coreInline()
	c.stepped()
	if c.jobs.Len() < offerBelow {
		return fork2Offer(w, c, f, x, y)
	}
	// The deque is long: run both here, without offering (see Join and
	// joinOffer, which says why this path is written out here).
	xDone := false
	defer func() {
		if !xDone {
			callRecover(w, func(w *Worker) { f(w, y) }) // x's panic wins
		}
	}()
	rx = f(w, x)
	xDone = true
	return rx, f(w, y)
}

// fork2Offer is Fork2 that offers f(w, y) to thieves.
func fork2Offer[T, R any](w *Worker, c *core, f func(*Worker, T) R, x, y T) (R, R) {
	w.checkCurrent(c)
	ft := getForkTask[T, R](c)
	ft.f, ft.arg = f, y
	ft.forkedFrom(w)
	c.jobs.Push(&ft.task)
	c.pool.wakep()
	aDone := false
	defer c.unwindJoin(w, &ft.joinTask, &aDone)
	rx := f(w, x)
	aDone = true
	pe, inline := c.joinBack(w, &ft.joinTask)
	ry := ft.res
	if inline {
		var zx T
		var zr R
		ft.f, ft.arg, ft.res, ft.ctx, ft.latch.grp, ft.latch.joiner = nil, zx, zr, nil, nil, nil // keep nothing of this call alive
		c.putForkTask(ft)
	}
	if pe != nil {
		panic(pe)
	}
	return rx, ry
}

// forkTask is Fork2's record for its second call: a fork-join task whose
// fn, bound once when the record is made, calls f(arg) into res.
type forkTask[T, R any] struct {
	joinTask
	f   func(*Worker, T) R
	arg T
	res R
}

func (ft *forkTask[T, R]) run(w *Worker) { ft.res = ft.f(w, ft.arg) }

// getForkTask takes a record of this type off w's free list, or makes one.
func getForkTask[T, R any](w *core) *forkTask[T, R] {
	if n := len(w.freeForks); n > 0 {
		if ft, ok := w.freeForks[n-1].(*forkTask[T, R]); ok {
			w.freeForks = w.freeForks[:n-1]
			return ft
		}
	}
	ft := &forkTask[T, R]{}
	ft.done = &ft.latch
	ft.fn = ft.run
	ft.part = true
	return ft
}

// putForkTask recycles a record that never left w.
func (c *core) putForkTask(ft any) {
	if len(c.freeForks) < maxFreeJoins {
		c.freeForks = append(c.freeForks, ft)
	}
}

package steal

import "context"

// A task that waits inside the pool runs other tasks on its own goroutine,
// above its own frames, and cannot go on before they return. That is safe
// for tasks spawned inside the pool (a NewGroup child, a Spawn, a part of
// Join, Fork2 or For) that keep to the package doc's rule for them: they
// wait only for work they started themselves, which began after the task
// beneath them and so cannot be waiting for it. A task submitted to the
// pool (Submit, Go, TrySubmit, SubmitBatch, a Pool.Group child,
// PoolSpawn, Run) is another matter: it may wait for anything, such as a
// Pool.Group of which the waiting task is a child, and run above that
// child it would wait forever for a task that cannot go on before it
// returns. So a waiting task that finds a submitted task to run lends it
// to a spare worker (as Block does), which runs it at the top of its own
// goroutine, and then only waits until its wait is over; the spare then
// retires once its queues are empty, as Block's does. The waiting task has
// nothing of its own left to run: its deque was empty when it came upon t
// (helpOnce pops it first), and only its own running code could refill it.
//
// The exception is a submitted task that is itself what the waiting task
// waits for (the task of the future it waits on, a child of the
// Pool.Group it waits for): that one is run here. If it waits
// for the task beneath it, the two wait for each other, which no
// scheduler could resolve.

// lend runs the waiting side of the above for w, waiting for l (or until
// ctx, if not nil, is done), after t, a submitted task, came up in its
// help loop. It reports false, having done nothing, when t is what l waits
// for or when no spare may start (the maxSpares cap); the caller then runs
// t itself.
func (c *core) lend(t *task, l *latch, ctx context.Context) bool {
	if t.done == l {
		return false
	}
	s := c.pool.spares.start(c.pool, t)
	if s == nil {
		return false
	}
	// Meanwhile w is blocked as in Worker.Block, with a spare standing in
	// for it: the stall detector must not take it for stuck.
	wasBlocking := c.blocking.Load()
	c.blocking.Store(true)
	defer func() {
		c.blocking.Store(wasBlocking)
		close(s.quit) // the spare retires once its own queues are empty
	}()
	// w's ring and runnext may hold tasks (a batch it took, half a ring it
	// stole, a task it spawned) that it would have run itself and that only
	// thieves can run now: a worker that parked while w was taking them
	// may not have seen them, so make sure somebody looks.
	if c.ring.Len() > 0 || c.runnext.Load() != nil {
		c.pool.wakep()
	}
	for !l.open() && (ctx == nil || ctx.Err() == nil) {
		c.blockOn(l)
	}
	return true
}

// blockOn blocks w until l opens, or until a token on joinWake says to
// look again (waitForCtx sends one when its context ends). Unlike sleepOn
// it leaves w off the idle list: a spare stands in for w meanwhile, and
// new work is for the spare and the other workers to run.
func (c *core) blockOn(l *latch) {
	opened := c.takeSleeperSlot(l)
	if !l.open() {
		c.traceMark(evPark)
		select {
		case <-c.joinWake:
		case <-opened:
		}
		c.traceMark(evUnpark)
	}
	c.unsleep(l)
}

package steal

import "context"

// A task that waits inside the pool runs other tasks on its own goroutine,
// above its own frames, and cannot go on before they return. It runs only
// tasks of the work it waits for (see "Waiting" in sched.go). Any other
// task it comes upon, having taken it from a queue, it lends to a spare
// worker (as Block does), which runs it at the top of a goroutine of its
// own; the waiting task then only waits until its wait is over, and the
// spare retires once its queues are empty, as Block's does. The waiting
// task comes upon its own descendants first (helpOnce pops them from its
// deque before it looks anywhere else), so it lends only once none is
// left there. The work it waits for may still make tasks it could have
// run; the spare and the other workers run them instead, so the pool
// loses no worker by it.
//
// There is no cap on spares: each one stands in for a task that waits, so
// a cap reached would either leave the lent task with nobody to run it or
// put it back above the waiting task, which is what may wait forever.

// lend runs the waiting side of the above for c, waiting for l (or until
// ctx, if not nil, is done), after t, a task that is not part of what l
// waits for, came up in its help loop.
func (c *core) lend(t *task, l *latch, ctx context.Context) {
	s := c.pool.spares.start(c.pool, t)
	// Meanwhile c is blocked as in Worker.Block, with a spare standing in
	// for it: the stall detector must not take it for stuck.
	wasBlocking := c.blocking.Load()
	c.blocking.Store(true)
	defer func() {
		c.blocking.Store(wasBlocking)
		close(s.quit) // the spare retires once its own queues are empty
	}()
	// c's ring and runnext may hold tasks (a batch it took, half a ring it
	// stole, a task it spawned) that it would have run itself and that only
	// thieves can run now: a worker that parked while c was taking them
	// may not have seen them, so make sure somebody looks.
	if c.ring.Len() > 0 || c.runnext.Load() != nil || c.jobs.Len() > 0 {
		c.pool.wakep()
	}
	for !l.open() && (ctx == nil || ctx.Err() == nil) {
		c.blockOn(l)
	}
}

// handOff gives t to a spare that runs it and retires: t came up in the
// help loop of a task that is about to panic instead of waiting.
func (c *core) handOff(t *task) {
	close(c.pool.spares.start(c.pool, t).quit)
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

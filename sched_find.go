package steal

// findWork returns the next task for w to run, parking w while there is
// none. It returns nil when the pool is done. The order is the package
// comment's "Finding work".
func (c *core) findWork() *task {
	for {
		if t := c.findLocal(); t != nil {
			return t
		}
		if c.retiring() { // a spare whose own queues are empty
			c.retireSpinning()
			return nil
		}
		if t := c.pool.inject.getBatch(c, len(c.pool.workers)); t != nil {
			c.stats.globalGrabs.inc()
			c.stopSpinning()
			return t
		}
		if c.spinning || c.pool.maySpin() {
			if !c.spinning {
				c.spinning = true
				c.pool.nspinning.Add(1)
			}
			if t := c.stealWork(); t != nil {
				c.stopSpinning()
				return t
			}
		}
		if !c.park() {
			return nil
		}
	}
}

// retireSpinning takes a retiring spare out of nspinning. A producer that
// saw it spinning woke nobody, counting on it to find the task; so, as a
// parking worker does, it looks at every queue once it no longer counts,
// and wakes a worker if it sees work.
func (c *core) retireSpinning() {
	if !c.spinning {
		return
	}
	c.dropSpinning()
	if c.pool.workVisible() {
		c.pool.wakep()
	}
}

// findLocal looks at the inject queue (1 time in 61), runnext and the ring.
func (c *core) findLocal() *task {
	if c.tick%61 == 0 {
		if t := c.pool.inject.getOneFor(c); t != nil {
			c.stats.globalGrabs.inc()
			c.stopSpinning()
			return t
		}
	}
	if c.runnextStreak < maxRunnextStreak {
		if t := c.takeRunnext(); t != nil {
			c.runnextStreak++
			c.stopSpinning()
			return t
		}
	}
	c.runnextStreak = 0
	if t := c.ring.Get(); t != nil {
		c.stopSpinning()
		return t
	}
	if t := c.takeRunnext(); t != nil { // skipped above for fairness, ring empty
		c.stopSpinning()
		return t
	}
	if t := c.jobs.Pop(); t != nil { // a Future nobody waited for
		c.stopSpinning()
		return t
	}
	return nil
}

// findQueued is findLocal without the deque: the inject queue (1 time in
// 61), runnext and the ring, for a waiting task (helpOnce).
func (c *core) findQueued() *task {
	if c.tick%61 == 0 {
		if t := c.pool.inject.getOneFor(c); t != nil {
			c.stats.globalGrabs.inc()
			return t
		}
	}
	if t := c.ring.Get(); t != nil {
		return t
	}
	return c.takeRunnext()
}

// takeRunnext empties w's runnext and returns what it held. It loads
// before it swaps: the load is a plain move, the swap a locked instruction,
// and runnext is empty for most tasks that came from the inject queue.
func (c *core) takeRunnext() *task {
	if c.runnext.Load() == nil {
		return nil
	}
	return c.runnext.Swap(nil)
}

// stopSpinning is called when w has found work. If w was the last spinning
// worker it wakes another, since there may be more work than w can run.
func (c *core) stopSpinning() {
	if !c.spinning {
		return
	}
	c.spinning = false
	if c.pool.nspinning.Add(-1) == 0 {
		c.pool.wakep()
	}
}

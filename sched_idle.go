package steal

// The idle list and the spinning/parking protocol; see "Spinning and
// parking" in the package comment for the invariant these functions keep.

// maySpin reports whether one more worker may start stealing: at most half
// of the busy workers spin at once.
func (p *Pool) maySpin() bool {
	busy := p.nworkers.Load() - p.nidle.Load()
	return 2*p.nspinning.Load() < busy
}

// wakep wakes one parked worker, as spinning, if there is one and no worker
// is spinning already. Producers call it after storing new work.
func (p *Pool) wakep() {
	if p.nidle.Load() == 0 || p.nspinning.Load() != 0 {
		return // nobody to wake, or a spinner will find the work
	}
	if !p.nspinning.CompareAndSwap(0, 1) {
		return
	}
	p.idleMu.Lock()
	w := p.popIdle()
	p.idleMu.Unlock()
	if w == nil {
		p.nspinning.Add(-1)
		return
	}
	w.wakeups.incAtomic()
	w.wake <- struct{}{} // buffered, and w is off the list: never blocks
}

// park puts w to sleep until new work or the end of the pool. It returns
// false when the pool is done and w should exit, or when w is a spare
// (Block) whose Block has returned.
func (c *core) park() bool {
	p := c.pool
	// Publish the counters before showing as idle: a Stats call that sees
	// every worker idle must see every task they ran (it reads Idle under
	// idleMu, after pushIdle). Done outside idleMu, which producers and
	// other parkers wait for; sleep publishes them again with the park.
	c.stats.flush()
	p.idleMu.Lock()
	if p.inject.len() > 0 { // work arrived since we looked
		p.idleMu.Unlock()
		return true
	}
	p.pushIdle(c)
	if p.doneIfQuiescent() {
		p.idleMu.Unlock()
		c.dropSpinning()
		return false
	}
	p.idleMu.Unlock()

	// Stop spinning, then look at every queue once more. A producer that
	// saw us (or another worker) spinning did not wake anyone, and a worker
	// that was not allowed to spin may have let the last spinner's wakep
	// find nobody on the idle list. A park is rare next to a task, so the
	// scan of W queues is cheap.
	c.dropSpinning()
	if p.workVisible() && p.removeIdle(c) {
		c.spinning = true
		p.nspinning.Add(1)
		return true
	}
	return c.sleep()
}

// sleep blocks a worker on the idle list until a waker takes it off (it
// then spins), the pool ends, or a spare may retire. It reports whether
// the worker goes on looking for work. A pool's workers start here: New
// puts them all on the idle list (see loop).
func (c *core) sleep() bool {
	p := c.pool
	c.stats.parks.inc()
	c.stats.flush()
	c.traceMark(evPark)
	defer c.traceMark(evUnpark)
	select {
	case <-c.wake:
		c.spinning = true // the waker counted us in nspinning
		return true
	case <-c.quit: // a spare whose Block returned: retire (nil for the pool's workers)
		if !p.removeIdle(c) {
			<-c.wake // a producer counted us spinning: pass the wakeup on
			p.nspinning.Add(-1)
			p.wakep()
		}
		return false
	case <-p.done:
		select {
		case <-c.wake: // woken and ended at once: the waker counted us
			c.spinning = true
		default:
		}
		c.dropSpinning()
		return false
	}
}

// dropSpinning takes w out of nspinning without waking anyone: w is
// about to sleep (and will look at every queue first) or to exit.
func (c *core) dropSpinning() {
	if c.spinning {
		c.spinning = false
		c.pool.nspinning.Add(-1)
	}
}

// workVisible reports whether any queue holds a task.
func (p *Pool) workVisible() bool {
	if p.inject.len() > 0 {
		return true
	}
	for _, v := range *p.victims.Load() {
		if v.ring.Len() > 0 || v.runnext.Load() != nil || v.jobs.Len() > 0 {
			return true
		}
	}
	return false
}

// pushIdle adds w to the idle list. Caller holds idleMu.
func (p *Pool) pushIdle(w *core) {
	p.idle = append(p.idle, w)
	p.nidle.Add(1)
}

// idleWorkers counts the pool's own workers on the idle list, for Stats:
// nidle also counts the spares parked there (see Block), which would make
// more idle workers than the pool has.
func (p *Pool) idleWorkers() int {
	p.idleMu.Lock()
	defer p.idleMu.Unlock()
	n := 0
	for _, c := range p.idle {
		if c.id < len(p.workers) { // spares have the IDs above
			n++
		}
	}
	return n
}

// popIdle takes the most recently parked worker, or nil. Caller holds idleMu.
func (p *Pool) popIdle() *core {
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	w := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	p.nidle.Add(-1)
	return w
}

// removeIdle takes w off the idle list if it is still there. If a waker took
// it first, it returns false and w must wait for the token already on its way.
func (p *Pool) removeIdle(w *core) bool {
	p.idleMu.Lock()
	defer p.idleMu.Unlock()
	for i, v := range p.idle {
		if v == w {
			last := len(p.idle) - 1
			p.idle[i] = p.idle[last]
			p.idle[last] = nil
			p.idle = p.idle[:last]
			p.nidle.Add(-1)
			return true
		}
	}
	return false
}

// doneIfQuiescent ends the pool if it is closed and has nothing left: the
// inject queue is empty and every worker is parked (a parked worker's own
// queues are empty, and only its running task could refill them). Caller
// holds idleMu. It reports whether the pool is done.
func (p *Pool) doneIfQuiescent() bool {
	select {
	case <-p.done:
		return true
	default:
	}
	if !p.closed.Load() || p.inject.len() > 0 || p.blocked.Load() > 0 || p.sleepers.Load() > 0 ||
		p.nidle.Load() < p.nworkers.Load() {
		return false
	}
	close(p.done)
	return true
}

// traceMark records a park or wake-up on w's timeline, if it has one.
func (c *core) traceMark(kind eventKind) {
	if c.timeline != nil {
		c.timeline.add(kind, 0, 0)
	}
}

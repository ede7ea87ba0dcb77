package steal

// findWork returns the next task for w to run, parking w while there is
// none. It returns nil when the pool is done. The order is the package
// comment's "Finding work".
func (w *worker) findWork() *task {
	for {
		if t := w.findLocal(); t != nil {
			return t
		}
		if w.retiring() { // a spare whose own queues are empty
			w.retireSpinning()
			return nil
		}
		if t := w.pool.inject.getBatch(w, len(w.pool.workers)); t != nil {
			w.stats.globalGrabs.inc()
			w.stopSpinning()
			return t
		}
		if w.spinning || w.pool.maySpin() {
			if !w.spinning {
				w.spinning = true
				w.pool.nspinning.Add(1)
			}
			if t := w.stealWork(); t != nil {
				w.stopSpinning()
				return t
			}
		}
		if !w.park() {
			return nil
		}
	}
}

// retireSpinning takes a retiring spare out of nspinning. A producer that
// saw it spinning woke nobody, counting on it to find the task; so, as a
// parking worker does, it looks at every queue once it no longer counts,
// and wakes a worker if it sees work.
func (w *worker) retireSpinning() {
	if !w.spinning {
		return
	}
	w.dropSpinning()
	if w.pool.workVisible() {
		w.pool.wakep()
	}
}

// findLocal looks at the inject queue (1 time in 61), runnext and the ring.
func (w *worker) findLocal() *task {
	if w.tick%61 == 0 {
		if t := w.pool.inject.getOneFor(w); t != nil {
			w.stats.globalGrabs.inc()
			w.stopSpinning()
			return t
		}
	}
	if w.runnextStreak < maxRunnextStreak {
		if t := w.takeRunnext(); t != nil {
			w.runnextStreak++
			w.stopSpinning()
			return t
		}
	}
	w.runnextStreak = 0
	if t := w.ring.Get(); t != nil {
		w.stopSpinning()
		return t
	}
	if t := w.takeRunnext(); t != nil { // skipped above for fairness, ring empty
		w.stopSpinning()
		return t
	}
	if t := w.jobs.Pop(); t != nil { // a Future nobody waited for, or helping
		w.stopSpinning()
		return t
	}
	return nil
}

// takeRunnext empties w's runnext and returns what it held. It loads
// before it swaps: the load is a plain move, the swap a locked instruction,
// and runnext is empty for most tasks that came from the inject queue.
func (w *worker) takeRunnext() *task {
	if w.runnext.Load() == nil {
		return nil
	}
	return w.runnext.Swap(nil)
}

// stopSpinning is called when w has found work. If w was the last spinning
// worker it wakes another, since there may be more work than w can run.
func (w *worker) stopSpinning() {
	if !w.spinning {
		return
	}
	w.spinning = false
	if w.pool.nspinning.Add(-1) == 0 {
		w.pool.wakep()
	}
}

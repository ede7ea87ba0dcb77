package steal

import (
	"context"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// helpSpins is how many empty rounds a waiting worker makes before it
// sleeps. Between two rounds it watches its latch for a moment (latchSpins
// loads) and, every yieldEvery rounds, yields the processor.
//
// Why not yield after every round: runtime.Gosched takes the Go
// scheduler's one global lock twice, to put the goroutine on the global run
// queue and to take a goroutine off it. A narrow tree keeps most workers
// waiting at once, and on 16 cores their yields queued on that lock
// (lock2 led the profile of the binomial UTS walk). So a waiter watches
// its latch instead, with a yield every yieldEvery rounds so that a worker
// whose processor is wanted (more workers than GOMAXPROCS, Block's
// spares) still gives it up, and steals with one pass per round
// (docs/costs.md has the measurements).
const (
	helpSpins  = 64
	yieldEvery = 16
	latchSpins = 200
)

// waitFor returns once l is open. Meanwhile the worker helps, but only
// with the work l waits for (see "Waiting" in sched.go): its own fork-join
// tasks first (most likely the very ones l waits for), then its other
// queued tasks, then the inject queue, then steals. A task it comes upon
// that is not part of that work it hands to a spare (lend), which runs it
// at the top of a goroutine of its own; the waiting task then only waits.
// When there is nothing to run anywhere it sleeps, on the idle list, so
// new work anywhere wakes it as it would wake a parked worker.
func (c *core) waitFor(l *latch) { c.helpUntil(l, l, nil) }

// waitThrough is waitFor for a part of the waiting task that a thief
// took (the second half of Join, Fork2 or Join2, a sub-range of For, a run
// of MapSeq). A task that waitFor runs while helping may call
// runtime.Goexit, which nothing recovers: it ends this goroutine, and
// with it the waiting task. The part is that task's, so the task must
// not end before it: if a Goexit unwinds waitFor, waitThrough goes on
// waiting for l (helping again) before the Goexit goes on. One more
// Goexit in a task run then ends that call, and the waitThrough it
// defers goes on.
func (c *core) waitThrough(l *latch) {
	waited := false
	defer func() {
		if !waited {
			c.waitThrough(l)
		}
	}()
	c.waitFor(l)
	waited = true
}

// helpUntil is waitFor's loop; with a non-nil ctx it also stops once ctx
// is done (see waitForCtx), leaving l's sleeper slot as it found it. It
// runs only tasks of the work that scope counts: scope is l itself, except
// for a Go waiting for a slot of a limited group, whose l is opened by any
// child of the group and whose scope is the group's latch.
func (c *core) helpUntil(l, scope *latch, ctx context.Context) {
	// While it waits the task runs no code of its own: its handle is not
	// current, so a goroutine it leaked that uses the handle is caught.
	cur := c.cur.load()
	c.cur.store(nil)
	c.waiting = append(c.waiting, cur)
	defer c.endWait(cur)
	if cur != nil && scope == l && ctx == nil {
		if done := cur.done; done != nil && done != l && l.joinerLatch() == nil &&
			atomic.CompareAndSwapPointer(&l.joiner, nil, unsafe.Pointer(done)) {
			// The work l counts is now part of the work cur's own waiter
			// waits for, until this wait ends.
			defer atomic.CompareAndSwapPointer(&l.joiner, unsafe.Pointer(done), nil)
		}
	}
	empty := 0
	for !l.open() && (ctx == nil || ctx.Err() == nil) {
		if t, mine := c.helpOnce(); t != nil {
			// A worker woken as a spinner must not run a task while still
			// counted in nspinning: every wakep would think someone is
			// looking for work and leave parked workers asleep.
			c.stopSpinning()
			if !mine && !inScope(t, scope) {
				if why := c.cycle(cur, l, scope, ctx); why != "" {
					c.handOff(t) // not lost with the panic
					panicCycle(why)
				}
				c.lend(t, l, ctx) // l is open or ctx done (sched_lend.go)
				break
			}
			if mine && cur != nil && !inScope(t, scope) {
				c.executeAbove(t, cur.done)
			} else {
				c.execute(t)
			}
			empty = 0
			continue
		}
		if empty++; empty < helpSpins {
			pause(l, empty)
			continue
		}
		if why := c.cycle(cur, l, scope, ctx); why != "" {
			panicCycle(why)
		}
		c.sleepOn(l)
		empty = 0
	}
	if ctx != nil {
		l.sleeper.CompareAndSwap(c, nil)
	}
	c.stopSpinning()
}

// executeAbove runs t, a descendant of the waiting task whose latch is by
// that is not part of the work that task waits for (case (a) of "Waiting"
// in sched.go). Run above it, t holds it: that task cannot return, and by
// cannot open, before t has returned, so while t runs the work t counts is
// part of the work by counts, and its latch is joined to by like the
// latch of a wait. A task that then waits for by, or for work that waits
// for it, finds t's latch on its chain and is caught as a cycle (see
// Misuse in sched.go), where it would otherwise wait for the task beneath
// t forever: a future run here that waits for a sibling's future, whose
// task waits for the future of the task beneath. If t's latch has a joiner
// already, nothing is linked, as for a second waiter.
//
// Only a latch that counts t alone (a future's) is linked. A group's latch
// counts all its children, and only t holds the task beneath: linked, it
// would make t's siblings part of the work of every task that waits for
// the task beneath, though the task beneath may never wait for the group.
// Such a waiter would then run a sibling above itself, and a sibling that
// waits for what that waiter does once its wait is over (through a
// channel, which is allowed, since it does not descend from the waiter)
// would hold it forever; a sibling's wait for that waiter's future would
// panic as a cycle.
func (c *core) executeAbove(t *task, by *latch) {
	if l := t.done; l != nil && by != nil && l != by && l.groupOf(t) == nil &&
		atomic.CompareAndSwapPointer(&l.joiner, nil, unsafe.Pointer(by)) {
		defer atomic.CompareAndSwapPointer(&l.joiner, unsafe.Pointer(by), nil)
	}
	c.execute(t)
}

// maxLineage bounds the walks up the joiner links: a task whose link to
// the waiting task's latch is longer is taken for foreign, which costs a
// spare but is never wrong, and a cycle of links (a cycle of waits no
// check caught) cannot make a walk endless.
const maxLineage = 64

// inScope reports whether t belongs to the work that scope counts: t
// counts scope down itself, or the task whose latch it counts down is
// waited for by a task of that work, and so on up (see "Waiting" in
// sched.go). The common case, a waiting task that pops the part it
// forked, costs one comparison.
func inScope(t *task, scope *latch) bool {
	l := t.done
	for i := 0; l != nil && i < maxLineage; i++ {
		if l == scope {
			return true
		}
		l = l.joinerLatch()
	}
	return false
}

// endWait ends a wait that helpUntil began: cur, the task that waited,
// is the worker's current task again and no longer waits beneath the
// tasks the worker runs.
func (c *core) endWait(cur *task) {
	c.waiting = c.waiting[:len(c.waiting)-1]
	c.cur.store(cur)
}

// cycle reports why the wait of the task cur for l can never end, or ""
// if it may. It is asked only before the waiting task blocks, where a
// walk up the links costs nothing next to blocking.
//
// The first reason is that cur is itself part of the work l counts: it
// waits for itself, as a Pool.Group's Wait called from a future its own
// child spawned and waits for would. The links a cycle needs are all in
// place by then once every task of the cycle has begun to wait, and the
// last one to begin finds it.
//
// The second is that a task beneath cur on this goroutine, one that
// waits and runs cur above itself, is part of the work l counts: that
// task cannot go on before cur returns, so l cannot open. A waiting task
// runs its own descendants above itself (case (a) of "Waiting" in
// sched.go), and a descendant that waits for a group its ancestor is a
// child of, or for its ancestor's future, gets here; with one goroutine
// per task it would have finished, but the ancestor's frames are beneath
// it now. A wait with a context (WaitContext) ends with the context, so
// it is not asked this.
//
// A Go waiting for a slot (scope != l) may be a child of its own group,
// and no task counts its l down, so it is asked neither.
func (c *core) cycle(cur *task, l, scope *latch, ctx context.Context) string {
	if scope != l {
		return ""
	}
	if cur != nil && inScope(cur, l) {
		return "a task waits for work that waits for it (a group's or a future's Wait " +
			"called from work that the group or future itself waits for)"
	}
	if ctx != nil {
		return ""
	}
	for _, t := range c.waiting[:len(c.waiting)-1] {
		if t != nil && inScope(t, l) {
			return "a task waits for work that the task it was spawned by (or one that task " +
				"descends from) is part of, while that task waits on the same worker and runs it " +
				"(a future or group child waits for its spawner's group or future)"
		}
	}
	return ""
}

func panicCycle(why string) {
	panic("steal: " + why + "; it would wait forever")
}

// pause waits a moment between two empty rounds of helpUntil: it watches
// l, and yields the processor every yieldEvery rounds (see helpSpins).
func pause(l *latch, round int) {
	if round%yieldEvery == 0 {
		runtime.Gosched()
		return
	}
	for i := 0; i < latchSpins && !l.open(); i++ {
	}
}

// helpOnce finds one task for a waiting worker, or nil, and reports
// whether the task is a descendant of the waiting task: one it or a task
// run above it pushed on the deque, at or above the mark. Those come
// first (most likely the very ones the wait is for); the deque's older
// items, pushed by the tasks beneath, come last, when there is nothing
// else, since the waiting task will most likely have to lend them.
func (c *core) helpOnce() (t *task, mine bool) {
	if int32(c.jobs.Bottom()-c.mark) > 0 {
		if t := c.jobs.Pop(); t != nil {
			return t, true
		}
	}
	if t := c.findQueued(); t != nil {
		return t, false
	}
	if t := c.pool.inject.getOne(); t != nil {
		return t, false
	}
	if t := c.stealPasses(1); t != nil {
		return t, false
	}
	return c.jobs.Pop(), false
}

// sleepOn parks w until l opens or new work may be available. It follows
// the parking protocol of sched_idle.go: join the idle list, stop spinning, look
// at every queue once more, then block.
//
// countDown wakes the one worker in l's sleeper slot. Several tasks may
// wait for one latch (a Future, a Pool.Group), so a worker that finds the
// slot taken by another waits on the latch's channel instead, which
// countDown closes for every waiter.
func (c *core) sleepOn(l *latch) {
	p := c.pool
	opened := c.takeSleeperSlot(l)
	if l.open() {
		c.unsleep(l)
		return
	}
	// A sleeper is on the idle list but inside a task: count it, so that
	// the pool is not taken for done (doneIfQuiescent) while its task runs.
	p.sleepers.Add(1)
	defer p.sleepers.Add(-1)
	p.idleMu.Lock()
	p.pushIdle(c)
	p.idleMu.Unlock()
	c.dropSpinning()
	if p.workVisible() && p.removeIdle(c) {
		c.unsleep(l)
		return
	}
	c.traceMark(evPark)
	defer c.traceMark(evUnpark)
	select {
	case <-c.joinWake:
		c.leaveIdle()
	case <-opened:
		c.leaveIdle()
	case <-c.wake:
		c.spinning = true // the waker counted us in nspinning
		c.unsleep(l)
	}
}

// takeSleeperSlot makes w l's sleeper, the one worker countDown wakes
// through joinWake, and returns nil; if another worker holds the slot, it
// returns the channel countDown closes for every waiter instead.
func (c *core) takeSleeperSlot(l *latch) <-chan struct{} {
	if l.sleeper.Load() == c || l.sleeper.CompareAndSwap(nil, c) {
		return nil
	}
	return l.doneChan()
}

// leaveIdle takes w, woken by its latch, off the idle list.
func (c *core) leaveIdle() {
	p := c.pool
	if !p.removeIdle(c) {
		// A producer took us off the idle list and counted us as
		// spinning; its token is on the way. Pass the wakeup on.
		<-c.wake
		p.nspinning.Add(-1)
		p.wakep()
	}
}

// unsleep withdraws w as l's sleeper and drops a wake token l may have sent.
func (c *core) unsleep(l *latch) {
	l.sleeper.CompareAndSwap(c, nil)
	select {
	case <-c.joinWake:
	default:
	}
}

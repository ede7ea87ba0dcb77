package steal

import (
	"context"
	"math/rand/v2"
	"runtime"
)

// finish is deferred by run. It restores the worker's current task (and
// its mark), turns a
// panic or a Goexit into a *PanicError, hands it to whoever waits for the
// task (or to the pool's panic sink), and counts the task done; for a
// timed task (start >= 0, when it started) it records the run in
// Stats.TaskTime. (A deferred call of its own for that, made only for
// timed tasks, still cost every task a check on the way out.)
func (c *core) finish(t *task, prev *task, prevMark uint32, returned *bool, start int64) {
	c.cur.store(prev)
	c.mark = prevMark
	l := t.done
	var g *Group // the group t is a child of
	if l != nil {
		g = l.groupOf(t)
	}
	var tc *taskCtx // a context Context made, to cancel once the task is done
	if t.lazy == lazyMade {
		tc = t.ctx.(*taskCtx)
	}
	var fail *PanicError
	if r := recover(); r != nil {
		fail = newPanicError(r, c.id)
	} else if !*returned {
		fail = newPanicError(ErrGoexit, c.id)
	}
	if start >= 0 { // before a waiter can hear the task is done
		c.recordRun(start)
	}
	// Asked only of a failed task, before forget clears fn, which tells.
	future := fail != nil && l != nil && l.groupOf(t) == nil && t.isFuture()
	reuse := t.reusable()
	t.c = nil
	t.forget()
	if fail != nil {
		c.stats.panics.inc()
	} else {
		c.stats.completed.inc()
	}
	switch {
	case l == nil:
		if fail != nil {
			c.pool.panics.add(fail)
		}
	case g != nil:
		if fail != nil {
			g.fail(fail)
		}
		g.childDone()
	default:
		if fail != nil {
			l.err = fail
			if future { // a waiter may never come: see panicSink.addFuture
				c.pool.panics.addFuture(l, fail)
			}
		}
		l.countDown()
	}
	if tc != nil {
		tc.end()
	}
	if reuse && len(c.freeGo) < maxFreeGo {
		*t = task{}
		c.freeGo = append(c.freeGo, t)
	}
}

// reusable reports whether t's record may serve another task once t has
// finished: t is a function queued by Pool.Go, so no user code got the
// record as a handle (unless Pool.Run, called inside it, handed it out),
// and t has no latch, group or context of its own that anyone could
// still reach through it. Every queue gives a task to exactly one worker,
// and a thief that read a stale slot drops what it read when its claim
// fails, so once t has finished nothing else refers to its record.
func (t *task) reusable() bool {
	return t.goFn && !t.handed && t.done == nil && !t.own && t.lazy == lazyNone
}

// maxFreeGo bounds a worker's list of records of finished Go functions
// (reusable), kept for the next Go functions the worker takes from the
// inject queue: enough for any batch it takes at once. Each keeps its slab
// of 10 alive, so a worker holds at most 60 KB this way.
const maxFreeGo = 128

// skip accounts for a task whose context was done before it started.
func (c *core) skip(t *task, ctx context.Context) {
	c.stats.skipped.inc()
	l := t.done
	var g *Group
	if l != nil {
		g = l.groupOf(t)
	}
	future := l != nil && g == nil && t.isFuture()
	t.forget()
	switch {
	case l == nil:
		if t.sub == subNone && !t.goFn { // a Worker.Spawn: nobody else can hear of it
			c.pool.panics.skipSpawned(context.Cause(ctx))
		}
	case g != nil:
		g.addSkipped(1, context.Cause(ctx))
		g.childDone()
	default:
		se := &SkippedError{Count: 1, Cause: context.Cause(ctx)}
		l.err = se
		if future { // a waiter may never come: Close reports it then
			c.pool.panics.holdFuture(l, se)
		}
		l.countDown()
	}
}

// forget drops what a record that has run or been skipped points to: its
// function (and what that captured), context and latch. Records are not
// run again (but for a Go function's, which finish reuses once zeroed: see
// reusable), and those from a worker's slab (newRecord) share one
// allocation, which the worker keeps while it hands out the rest: a record
// that held on to its function would keep it reachable, and those of the
// slab's other finished tasks, while the worker makes no new records. It
// runs before the latch is counted down, after which the record may be its
// waiter's again.
func (t *task) forget() {
	t.fn, t.ctx, t.done = nil, nil, nil
}

// goid returns the calling goroutine's id, parsed from the first line of
// its stack trace ("goroutine 42 [running]:"). It costs microseconds, more
// on deep stacks, so it is called only where the caller is about to block
// anyway.
func goid() int64 {
	var buf [40]byte
	n := runtime.Stack(buf[:], false)
	var id int64
	for _, ch := range buf[len("goroutine "):n] {
		if ch < '0' || ch > '9' {
			break
		}
		id = id*10 + int64(ch-'0')
	}
	return id
}

// callerCore returns the worker of p that the calling goroutine runs, or
// nil if the caller is not one of p's worker goroutines.
func (p *Pool) callerCore() *core {
	id := goid()
	for _, c := range *p.victims.Load() {
		if c.owner.Load() == id {
			return c
		}
	}
	return nil
}

func rand32() uint32 { return rand.Uint32() }

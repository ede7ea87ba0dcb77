// The backlog: how Submit, SubmitBatch and a Pool.Group wait for room
// when WithMaxQueued tasks are already queued.

package steal

import "context"

// waitRoom waits for room to queue e, as Submit does (see awaitRoom), and
// queues it: past the cap, uncounted, if the caller is one of our workers.
// It returns ErrBacklogFull when room was made and the caller should try
// again.
func (p *Pool) waitRoom(ctx context.Context, e entry) error {
	forced, err := p.awaitRoom(ctx, func() (bool, error) {
		err := p.submitEntry(e, false)
		return err != ErrBacklogFull, err
	})
	if forced {
		return p.submitEntry(e, true)
	}
	return err
}

// awaitRoom is the wait of Submit and SubmitBatch at a full backlog. It
// takes the current room channel, then calls retry, which tries the
// submission once more and reports whether that settled it, and how; if
// so, awaitRoom returns that error. Otherwise it waits for a worker to
// pick queued tasks up (ErrBacklogFull: try again), for ctx to end
// (ctx.Err(), or ErrClosed if closing has begun by then) or for Close or
// Shutdown to begin (ErrClosed).
//
// Taking the channel before the retry means a pick-up in between closes a
// channel we hold: no wakeup is lost. Closing is the same: Shutdown sets
// closed and then closes the room channel under roomMu, so either we took
// the channel after that, and the retry sees closed (and refuses with
// ErrClosed, full backlog or not), or before, and the channel we hold is
// closed. Only then, about to block, does it ask whether the caller is one
// of our workers (which reads the stack): it then returns forced, without
// waiting, for the caller to queue past the cap, since only our own
// workers make room.
func (p *Pool) awaitRoom(ctx context.Context, retry func() (settled bool, err error)) (forced bool, err error) {
	p.roomWaiters.Add(1)
	defer p.roomWaiters.Add(-1)
	p.roomMu.Lock()
	room := p.room
	p.roomMu.Unlock()
	if settled, err := retry(); settled {
		return false, err
	}
	if p.callerCore() != nil {
		return true, nil
	}
	select {
	case <-room: // room was made, or closing began
		return false, ErrBacklogFull // try again
	case <-ctx.Done():
		if p.closed.Load() {
			// Closing has begun as well, and may be why ctx ended: a
			// Pool.Group's round context ends with the pool's. Both
			// channels may be ready when the select looks, and it picks
			// one at random; the refusal is closing's (ErrClosed), as
			// the retry would have said, or a Group's Wait reported a
			// skipped child instead of ErrClosed.
			return false, ErrClosed
		}
		return false, ctx.Err()
	case <-p.ctx.Done():
		return false, ErrClosed
	}
}

// takeQueued counts one more task in the WithMaxQueued backlog and reports
// whether that stayed within the cap; if not, it counts nothing.
func (p *Pool) takeQueued() bool {
	if p.queued.Add(1) > p.maxQueued {
		p.undoRefused()
		return false
	}
	return true
}

// undoRefused takes back the count of a submit refused at the cap. Our
// brief over-count may have failed a waiter's retry, so it is undone like a
// pick-up: if that leaves room, the waiters are woken.
func (p *Pool) undoRefused() { p.releaseQueued(1) }

// releaseQueued takes n external tasks out of the backlog (picked up by a
// worker, or refused after they were counted) and, if that leaves room,
// wakes the Submits blocked on a full backlog to retry. Workers release a
// whole batch at once, so a Submit kept at the cap is woken once per batch,
// not once per task. A waiter that fails its retry waits again on a fresh
// channel, so a refused submit's own release cannot make it spin: the
// waiter only wakes when the count drops below the cap.
func (p *Pool) releaseQueued(n int64) {
	if p.queued.Add(-n) >= p.maxQueued || p.roomWaiters.Load() == 0 {
		return
	}
	p.wakeRoomWaiters()
}

// wakeRoomWaiters wakes every Submit waiting for backlog room to try again:
// it closes the room channel they hold and gives later ones a fresh one.
func (p *Pool) wakeRoomWaiters() {
	p.roomMu.Lock()
	close(p.room)
	p.room = make(chan struct{})
	p.roomMu.Unlock()
}

// roomFor returns how many of the next k submissions may be queued now
// (at least one), and whether they hold places in the WithMaxQueued
// backlog. At the cap it waits for room as Submit does (awaitRoom).
func (p *Pool) roomFor(ctx context.Context, k int) (int, bool, error) {
	if p.maxQueued == 0 {
		return k, false, nil
	}
	for {
		n, err := p.takeRoom(k)
		if err != ErrBacklogFull {
			return n, err == nil, err
		}
		forced, err := p.awaitRoom(ctx, func() (bool, error) {
			n, err = p.takeRoom(k)
			return err != ErrBacklogFull, err
		})
		switch {
		case forced:
			return k, false, nil // a worker's: past the cap, uncounted
		case err != ErrBacklogFull:
			return n, err == nil, err
		}
	}
}

// takeRoom counts up to k more tasks in the WithMaxQueued backlog, as many
// as stay within the cap, and returns how many that was. If it can take
// none it says why, as submitEntry does: ErrClosed once closing has
// begun, else ErrBacklogFull.
func (p *Pool) takeRoom(k int) (int, error) {
	for {
		cur := p.queued.Load()
		room := p.maxQueued - cur
		if room <= 0 {
			if p.closed.Load() {
				return 0, ErrClosed
			}
			return 0, ErrBacklogFull
		}
		n := min(int64(k), room)
		if p.queued.CompareAndSwap(cur, cur+n) {
			return int(n), nil
		}
	}
}

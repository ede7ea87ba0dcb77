package steal

import (
	"context"
	"strconv"
	"unsafe"
)

// submitChunk is how many submissions SubmitBatch queues with one claim on
// the inject queue. The entries are built on the stack, so a chunk costs
// no allocation; 64 makes the claim and the wakeup a small share of each.
const submitChunk = 64

// SubmitBatch queues every function of fns to run on the pool, as Submit
// queues one, in the order given (they may run in any order, like any
// tasks), but claims room in the inject queue for up to 64 of them at a
// time with one atomic add, and looks for a worker to wake once a claim.
// Use it when a producer has many tasks at hand (BenchmarkSubmitProducers,
// steal-batch, compares it with Submit). Every function sees ctx as a function
// passed to Submit does, and is skipped the same way if ctx or the pool's
// context is done before it starts.
//
// SubmitBatch returns how many functions it queued, counted from the start
// of fns, and a nil error once it has queued them all. Once Close or
// Shutdown has begun it returns ErrClosed, queuing nothing more. With
// WithMaxQueued it queues what fits and waits for room for the rest, as
// Submit waits, until ctx ends (ctx.Err()) or closing begins (ErrClosed);
// called from a task of the same pool it never waits, and what does not
// fit is queued past the cap, as with Submit. A nil function anywhere in
// fns panics before anything is queued; a nil ctx means
// context.Background().
//
// Cost: per function, what Submit costs less one atomic add and one
// wakeup check (and, under WithMaxQueued, one atomic add on the backlog
// count) for every 64.
func (p *Pool) SubmitBatch(ctx context.Context, fns []func(w *Worker)) (int, error) {
	p.made("Pool.SubmitBatch")
	for i, fn := range fns {
		if fn == nil {
			panic("steal: Pool.SubmitBatch called with a nil function at index " + strconv.Itoa(i) + "; nothing was queued")
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if len(fns) == 0 && p.closed.Load() {
		return 0, ErrClosed
	}
	own := ctx != context.Background() && ctx != context.TODO()
	var chunk [submitChunk]entry
	queued := 0
	for queued < len(fns) {
		k, counted, err := p.roomFor(ctx, min(len(fns)-queued, submitChunk))
		if err != nil {
			return queued, err
		}
		es := chunk[:k]
		for i := range es {
			fn := fns[queued+i]
			e := entry{fn: *(*unsafe.Pointer)(unsafe.Pointer(&fn))}
			if own {
				e.x = &waitStamp{Context: ctx, at: -1}
			}
			es[i] = p.markSubmitted(e, counted)
		}
		if !p.inject.putBatch(es) {
			if counted {
				p.releaseQueued(int64(k))
			}
			clear(es)
			return queued, ErrClosed
		}
		clear(es) // a wait for room must not keep the queued functions alive
		p.wakep()
		queued += k
	}
	return queued, nil
}

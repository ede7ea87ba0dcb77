package steal

import (
	"context"
	"iter"
	"slices"
	"time"
)

// MapSeq is Map over a sequence: it calls f(w, x) for every x that seq
// yields, in parallel, and returns the results in the order seq yielded
// them. It must be called by the task that received w; calls see that
// task's context and are all made, as with Map.
//
// seq is read on the calling task only, one element at a time, and the
// calls start while it is still being read. Its yield must be called on
// the goroutine that ranges over it, as it is by any iterator that does
// not hand its elements over from goroutines of its own. The task gathers elements into
// runs: whenever idle workers have taken everything it offered, it offers
// the next run to them and goes on reading; otherwise it makes the run's
// calls itself. A run starts at one element and doubles while reading and
// handling one takes under 25 µs, as ForRange's sub-ranges do: there is no
// grain size, a thief waits about that long at most for the task to look
// for it, and a slow sequence is never read far ahead of the calls. A run
// a thief takes is split further as Map splits a slice.
//
// A panic in f is handled as by Map. A panic in seq itself goes on
// unchanged, once the runs already offered have finished.
//
// Cost: Map's, plus what not knowing the length costs: the results are
// gathered in a slice that doubles as it fills, the elements of each run
// are buffered, and the results of runs a thief took are copied into
// place at the end; BenchmarkMap compares it with Map over a slice and
// with collecting the sequence first.
func MapSeq[T, R any](w *Worker, seq iter.Seq[T], f func(w *Worker, x T) R) []R {
	if w == nil {
		nilWorker("MapSeq")
	}
	if seq == nil || f == nil {
		nilFunc("MapSeq")
	}
	return mapSeq(w, seq, plainBody(f), nil)
}

// MapSeqErr is MapSeq for functions that can fail, with the cancellation,
// results and error of MapErr; indexes count the elements in the order
// seq yielded them. Once the map's context is done, MapSeqErr stops
// reading seq: the calls not made that it counts are those of the elements
// it had already read. Tasks that f spawns run even if they start after
// MapSeqErr has returned (see the package doc's "Spawned tasks run").
func MapSeqErr[T, R any](w *Worker, seq iter.Seq[T], f func(w *Worker, x T) (R, error)) ([]R, error) {
	if w == nil {
		nilWorker("MapSeqErr")
	}
	if seq == nil || f == nil {
		nilFunc("MapSeqErr")
	}
	m := newMapRun(w)
	defer m.cancel(nil)
	var out []R
	stop := func() bool { return m.ctx.Err() != nil }
	if pe := asPartErr(w, newScope(w, m.ctx), func(w *Worker) { out = mapSeq(w, seq, errBody(m, f), stop) }); pe != nil {
		return out, pe
	}
	return out, m.err()
}

// PoolMapSeq is MapSeq for callers outside the pool, started as PoolMap
// is; seq is read on the worker that runs the map.
func PoolMapSeq[T, R any](ctx context.Context, p *Pool, seq iter.Seq[T], f func(w *Worker, x T) R) ([]R, error) {
	p.made("PoolMapSeq")
	if seq == nil || f == nil {
		nilFunc("PoolMapSeq")
	}
	var out []R
	err := p.runCtx(ctx, func(w *Worker) { out = MapSeq(w, seq, f) })
	return out, err
}

// PoolMapSeqErr is MapSeqErr for callers outside the pool, started as
// PoolMap is and cancelled as PoolMapErr is.
func PoolMapSeqErr[T, R any](ctx context.Context, p *Pool, seq iter.Seq[T], f func(w *Worker, x T) (R, error)) ([]R, error) {
	p.made("PoolMapSeqErr")
	if seq == nil || f == nil {
		nilFunc("PoolMapSeqErr")
	}
	var out []R
	var merr error
	if err := p.runCtx(ctx, func(w *Worker) { out, merr = MapSeqErr(w, seq, f) }); err != nil {
		return nil, err
	}
	return out, merr
}

// seqRun is one MapSeq.
type seqRun[T, R any] struct {
	w    *Worker
	c    *core
	body mapBody[T, R]
	buf  []T // the run being gathered
	// out holds the results in order; the places of runs offered to
	// thieves hold zeros until join copies their results in.
	out     []R
	offered []offeredRun[R]
	inF     bool // the reading task is making calls: a panic now is f's
}

// offeredRun is a run offered to thieves: where its results go in out,
// and the slice its calls write them to meanwhile.
type offeredRun[R any] struct {
	at  int
	out []R
	j   *joinTask
}

func mapSeq[T, R any](w *Worker, seq iter.Seq[T], body mapBody[T, R], stop func() bool) []R {
	s := &seqRun[T, R]{w: w, c: w.core(), body: body}
	defer s.unwind()
	chunk, start := 1, time.Now()
	for x := range seq {
		s.buf = append(s.buf, x)
		stopping := stop != nil && stop()
		if len(s.buf) < chunk && !stopping {
			continue
		}
		s.dispatch()
		if stopping {
			break
		}
		if time.Since(start) < chunkTime {
			chunk = min(2*chunk, maxChunk)
		}
		s.buf = slices.Grow(s.buf, chunk)
		start = time.Now()
	}
	if len(s.buf) > 0 {
		s.dispatch()
	}
	if pe := s.join(); pe != nil {
		panic(pe)
	}
	if s.out == nil {
		return []R{}
	}
	return s.out
}

// dispatch offers the gathered run to thieves if they have taken all
// that was offered before, and otherwise makes its calls here.
func (s *seqRun[T, R]) dispatch() {
	base, in := len(s.out), s.buf
	if n := base + len(in); n > cap(s.out) {
		// Double, where append would grow a large slice by 1.25x and
		// copy the results four times over.
		s.out = slices.Grow(s.out, max(n, 2*cap(s.out))-base)
	}
	s.out = s.out[:base+len(in)]
	if s.c.offerSplit() {
		out, body := make([]R, len(in)), s.body
		j := s.c.getJoinTask(func(w *Worker) { mapSlice(w, in, out, shift(body, base)) }, s.w)
		s.c.jobs.Push(&j.task)
		s.c.pool.wakep()
		s.offered = append(s.offered, offeredRun[R]{at: base, out: out, j: j})
		s.buf = nil // the thief's now
		return
	}
	s.inF = true
	s.body(s.w, in, s.out[base:], base)
	s.inF = false
	s.buf = s.buf[:0]
}

// shift makes body see indexes from base on.
func shift[T, R any](body mapBody[T, R], base int) mapBody[T, R] {
	return func(w *Worker, in []T, out []R, b int) { body(w, in, out, base+b) }
}

// join waits for the offered runs, last offered first (the deque's order),
// running those no thief took, copies their results into place, and
// returns the first panic among them. It drops each run from s.offered
// before finishing it, so that if one run here calls Goexit, rest can
// finish the others.
func (s *seqRun[T, R]) join() *PanicError {
	var first *PanicError
	for len(s.offered) > 0 {
		k := len(s.offered) - 1
		r := s.offered[k]
		s.offered = s.offered[:k]
		if pe := s.c.joinBackRecover(s.w, r.j); first == nil {
			first = pe
		}
		copy(s.out[r.at:], r.out)
	}
	return first
}

// unwind is deferred by mapSeq. It does nothing once join has finished
// every offered run; if a panic or a Goexit (in seq, in f, or in a run
// join made here) left some unfinished, it lets them finish first. A
// panic of f is then re-raised as a *PanicError, as Map does; one of seq
// itself goes on unchanged, since only a panic of f is recovered here.
func (s *seqRun[T, R]) unwind() {
	var pe *PanicError
	if s.inF {
		if r := recover(); r != nil {
			pe = newPanicError(r, s.c.id)
		}
	}
	s.rest()
	if pe != nil {
		panic(pe)
	}
}

// rest finishes the offered runs join has not. If one it runs here calls
// Goexit, which nothing recovers, the call it defers goes on with the
// others, and their panics are dropped: the Goexit wins.
func (s *seqRun[T, R]) rest() {
	if len(s.offered) == 0 {
		return
	}
	defer s.rest()
	s.join()
}

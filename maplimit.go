package steal

import "sync/atomic"

// MapLimit is Map with at most limit calls of f running at once, for an f
// that blocks through Worker.Block (I/O, a rate-limited service). Map has
// no such bound: each call that blocks hands its worker's place to a
// spare, which takes the next part of in and may block in turn, and spares
// are not capped, so any number of calls may be under way at once
// (up to one per element of in). MapLimit runs min(limit,
// len(in)) lanes, each calling f for one element at a time, the next one
// not yet taken by any lane: idle workers and spares steal lanes, never
// single elements, so however f blocks, no more than limit calls are under
// way. With no idle worker one lane makes every call, as Map's loop does.
//
// It must be called by the task that received w; calls see that task's
// context and are all made, and a panic in f is re-raised once every lane
// has finished, as by Map. A limit below 1 panics. From outside the pool,
// call it inside Pool.Run (or PoolMap's place: p.Run(func(w *Worker) { out
// = MapLimit(w, n, in, f) })).
//
// Cost: Map's, but elements are handed out one at a time with an atomic
// add each, which Map avoids: for a cheap f, prefer Map.
func MapLimit[T, R any](w *Worker, limit int, in []T, f func(w *Worker, x T) R) []R {
	if w == nil {
		nilWorker("MapLimit")
	}
	if f == nil {
		nilFunc("MapLimit")
	}
	checkLimit("MapLimit", limit)
	out := make([]R, len(in))
	mapLanes(w, limit, len(in), func(w *Worker, i int) { out[i] = f(w, in[i]) })
	return out
}

// MapErrLimit is MapErr with at most limit calls of f running at once, as
// MapLimit bounds Map: the first error (or panic) cancels the context the
// other calls see, and the elements no lane has taken by then are not
// called; the results and error are those of MapErr, a panic in f
// included. A limit below 1 panics.
func MapErrLimit[T, R any](w *Worker, limit int, in []T, f func(w *Worker, x T) (R, error)) ([]R, error) {
	if w == nil {
		nilWorker("MapErrLimit")
	}
	if f == nil {
		nilFunc("MapErrLimit")
	}
	checkLimit("MapErrLimit", limit)
	out := make([]R, len(in))
	m := newMapRun(w)
	defer m.cancel(nil)
	pe := asPartErr(w, newScope(w, m.ctx), func(w *Worker) {
		mapLanes(w, limit, len(in), func(w *Worker, i int) {
			if m.ctx.Err() != nil {
				m.skipped.Add(1)
				return
			}
			finished := false
			defer func() {
				if !finished {
					m.cancel(errItemPanicked)
				}
			}()
			r, err := f(w, in[i])
			finished = true
			if err != nil {
				m.fail(i, err)
				return
			}
			out[i] = r
		})
	})
	if pe != nil {
		return out, pe
	}
	return out, m.err()
}

func checkLimit(call string, limit int) {
	if limit < 1 {
		panic("steal: " + call + " called with a limit below 1")
	}
}

// mapLanes calls call(w, i) for every i in [0, n), from min(limit, n)
// lanes that For spreads over the pool; each lane takes the next index
// from a shared counter until none is left, so at most limit calls run at
// once, and a lane that runs late finds less left to do.
func mapLanes(w *Worker, limit, n int, call func(w *Worker, i int)) {
	var next atomic.Int64
	For(w, 0, min(limit, n), func(w *Worker, _ int) {
		for {
			i := next.Add(1) - 1
			if i >= int64(n) {
				return
			}
			call(w, int(i))
		}
	})
}

package main

import "github.com/worksteal/steal"

// fib with steal's ordinary API, written the way a user of errgroup or of
// futures would write it: a Group per call with a Go per child, or a Spawn
// for one child while the caller computes the other. Errors (a panic or a
// skipped child, reported by Wait) are passed up, not dropped.

// fibGroup makes a group per call and gives each of the two calls a Go.
func fibGroup(w *steal.Worker, n int) (int, error) {
	if n < 2 {
		return n, nil
	}
	var a, b int
	g := steal.NewGroup(w)
	g.Go(func(w *steal.Worker) (err error) { a, err = fibGroup(w, n-1); return err })
	g.Go(func(w *steal.Worker) (err error) { b, err = fibGroup(w, n-2); return err })
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return a + b, nil
}

// fibSpawn spawns fib(n-1) as a future, computes fib(n-2) and waits.
func fibSpawn(w *steal.Worker, n int) (int, error) {
	if n < 2 {
		return n, nil
	}
	f := steal.Spawn(w, func(w *steal.Worker) fibResult {
		v, err := fibSpawn(w, n-1)
		return fibResult{v, err}
	})
	b, err := fibSpawn(w, n-2)
	a, werr := f.Wait(w)
	switch {
	case werr != nil:
		return 0, werr
	case a.err != nil:
		return 0, a.err
	case err != nil:
		return 0, err
	}
	return a.v + b, nil
}

// fibResult is a spawned call's value and error.
type fibResult struct {
	v   int
	err error
}

// runFib runs fib(r.Param) as one task on a fresh pool.
func runFib(fib func(*steal.Worker, int) (int, error)) RunFunc {
	return func(r *Run) (int64, error) {
		var v int
		var err error
		if rerr := runSteal(r, func(w *steal.Worker) { v, err = fib(w, r.Param) }); rerr != nil {
			return 0, rerr
		}
		return int64(v), err
	}
}

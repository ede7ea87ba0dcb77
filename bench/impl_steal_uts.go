package main

import (
	"github.com/worksteal/steal"
	"github.com/worksteal/steal/bench/internal/uts"
)

// UTS on steal, four ways: Fork2 and Join (closures) over a binary split of
// a node's children, the expert form; and a task per child with a Group per
// node or a Spawn per child, the way most users write it.

// utsSpan is the children lo..hi-1 of node n, what Fork2 and Join halve.
type utsSpan struct {
	t      *uts.Tree
	n      uts.Node
	lo, hi int
}

// utsNodeFork2 counts n's subtree with Fork2.
func utsNodeFork2(w *steal.Worker, t *uts.Tree, n uts.Node) int64 {
	k := t.Kids(n)
	if k == 0 {
		return 1
	}
	return 1 + utsFork2(w, utsSpan{t, n, 0, k})
}

// utsFork2 counts the subtrees of the children in s.
func utsFork2(w *steal.Worker, s utsSpan) int64 {
	if s.hi-s.lo == 1 {
		return utsNodeFork2(w, s.t, s.t.Child(s.n, s.lo))
	}
	mid := int(uint(s.lo+s.hi) / 2)
	a, b := steal.Fork2(w, utsFork2, utsSpan{s.t, s.n, s.lo, mid}, utsSpan{s.t, s.n, mid, s.hi})
	return a + b
}

// utsNodeJoin counts n's subtree with Join.
func utsNodeJoin(w *steal.Worker, t *uts.Tree, n uts.Node) int64 {
	k := t.Kids(n)
	if k == 0 {
		return 1
	}
	return 1 + utsJoin(w, t, n, 0, k)
}

// utsJoin counts the subtrees of n's children lo..hi-1.
func utsJoin(w *steal.Worker, t *uts.Tree, n uts.Node, lo, hi int) int64 {
	if hi-lo == 1 {
		return utsNodeJoin(w, t, t.Child(n, lo))
	}
	mid := int(uint(lo+hi) / 2)
	var a, b int64
	steal.Join(w,
		func(w *steal.Worker) { a = utsJoin(w, t, n, lo, mid) },
		func(w *steal.Worker) { b = utsJoin(w, t, n, mid, hi) })
	return a + b
}

// utsGroup counts n's subtree with a Group per node and a Go per child,
// each child writing its count into its own slot.
func utsGroup(w *steal.Worker, t *uts.Tree, n uts.Node) (int64, error) {
	k := t.Kids(n)
	if k == 0 {
		return 1, nil
	}
	counts := make([]int64, k)
	g := steal.NewGroup(w)
	for i := range k {
		g.Go(func(w *steal.Worker) (err error) {
			counts[i], err = utsGroup(w, t, t.Child(n, i))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	total := int64(1)
	for _, c := range counts {
		total += c
	}
	return total, nil
}

// utsSpawn counts n's subtree with a Spawn per child, then a Wait for each.
func utsSpawn(w *steal.Worker, t *uts.Tree, n uts.Node) (int64, error) {
	k := t.Kids(n)
	if k == 0 {
		return 1, nil
	}
	futures := make([]*steal.Future[utsResult], k)
	for i := range k {
		futures[i] = steal.Spawn(w, func(w *steal.Worker) utsResult {
			c, err := utsSpawn(w, t, t.Child(n, i))
			return utsResult{c, err}
		})
	}
	total := int64(1)
	var first error
	for _, f := range futures {
		r, err := f.Wait(w)
		if err == nil {
			err = r.err
		}
		if err != nil && first == nil {
			first = err
		}
		total += r.n
	}
	if first != nil {
		return 0, first
	}
	return total, nil
}

// utsResult is a spawned subtree's count and error.
type utsResult struct {
	n   int64
	err error
}

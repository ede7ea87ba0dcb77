package main

import "golang.org/x/sync/errgroup"

// errgroup: one errgroup.Group per batch with SetLimit(workers), which its
// documentation offers for bounding concurrency; Go blocks at the limit.
type errgroupPool struct{ g errgroup.Group }

func newErrgroup(workers int) pool {
	p := &errgroupPool{}
	p.g.SetLimit(workers)
	return p
}

func (p *errgroupPool) Go(f func()) { p.g.Go(func() error { f(); return nil }) }
func (p *errgroupPool) Wait()       { p.g.Wait() }
func (p *errgroupPool) Close()      {}

// fibErrgroup forks through a fresh, unbounded group on every call.
func fibErrgroup(n int) int {
	if n < 2 {
		return n
	}
	var a int
	var g errgroup.Group
	g.Go(func() error { a = fibErrgroup(n - 1); return nil })
	b := fibErrgroup(n - 2)
	g.Wait()
	return a + b
}

func sortErrgroup(a, tmp []int) {
	if len(a) <= sortCutoff {
		sortLeaf(a)
		return
	}
	m := len(a) / 2
	var g errgroup.Group
	g.Go(func() error { sortErrgroup(a[:m], tmp[:m]); return nil })
	sortErrgroup(a[m:], tmp[m:])
	g.Wait()
	merge(a, tmp, m)
}

// nestedErrgroup: a group per node, unbounded; the way errgroup nests. A
// single group with SetLimit(workers) shared by all levels would deadlock
// like ants, pond and conc do.
func nestedErrgroup(depth int, leaves *counter) {
	if depth == 0 {
		leaves.add()
		return
	}
	var g errgroup.Group
	for range fanOut {
		g.Go(func() error { nestedErrgroup(depth-1, leaves); return nil })
	}
	g.Wait()
}

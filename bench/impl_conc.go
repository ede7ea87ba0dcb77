package main

import (
	"github.com/sourcegraph/conc"
	concpool "github.com/sourcegraph/conc/pool"
)

// conc: concpool.New().WithMaxGoroutines(workers), Go and Wait, as its README
// shows; Go blocks while all goroutines are busy. A conc pool is not reused
// after Wait, so each batch makes one. Fork-join recursion (fib, sort) uses
// conc.WaitGroup, its unbounded structured WaitGroup.
type concPool struct{ p *concpool.Pool }

func newConc(workers int) pool { return &concPool{p: concpool.New().WithMaxGoroutines(workers)} }

func (p *concPool) Go(f func()) { p.p.Go(f) }
func (p *concPool) Wait()       { p.p.Wait() }
func (p *concPool) Close()      {}

func fibConc(n int) int {
	if n < 2 {
		return n
	}
	var a int
	var wg conc.WaitGroup
	wg.Go(func() { a = fibConc(n - 1) })
	b := fibConc(n - 2)
	wg.Wait()
	return a + b
}

func sortConc(a, tmp []int) {
	if len(a) <= sortCutoff {
		sortLeaf(a)
		return
	}
	m := len(a) / 2
	var wg conc.WaitGroup
	wg.Go(func() { sortConc(a[:m], tmp[:m]) })
	sortConc(a[m:], tmp[m:])
	wg.Wait()
	merge(a, tmp, m)
}

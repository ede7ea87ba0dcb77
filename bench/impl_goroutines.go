package main

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// goroutines: a go statement per task and a sync.WaitGroup.
type goroutinesPool struct{ wg sync.WaitGroup }

func newGoroutines(int) pool { return &goroutinesPool{} }

func (p *goroutinesPool) Go(f func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		f()
	}()
}
func (p *goroutinesPool) Wait()  { p.wg.Wait() }
func (p *goroutinesPool) Close() {}

// fibGoroutines forks with a goroutine on every call.
func fibGoroutines(n int) int {
	if n < 2 {
		return n
	}
	var a int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a = fibGoroutines(n - 1)
	}()
	b := fibGoroutines(n - 2)
	wg.Wait()
	return a + b
}

// sortGoroutines is mergesort with a goroutine for one half above the cutoff.
func sortGoroutines(a, tmp []int) {
	if len(a) <= sortCutoff {
		sortLeaf(a)
		return
	}
	m := len(a) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sortGoroutines(a[:m], tmp[:m])
	}()
	sortGoroutines(a[m:], tmp[m:])
	wg.Wait()
	merge(a, tmp, m)
}

// memoryGoroutines parks n goroutines on the gate.
func memoryGoroutines(r *Run) (int64, error) {
	n := r.Param
	gate := make(chan struct{})
	var ran atomic.Int64
	done := make(chan struct{})
	gated := func() {
		<-gate
		if ran.Add(1) == int64(n) {
			close(done)
		}
	}
	before := liveBytes()
	r.Start()
	for range n {
		go gated()
	}
	r.Stop()
	runtime.Gosched()
	r.BytesPerTask = float64(liveBytes()-before) / float64(n)
	close(gate)
	<-done
	return ran.Load(), nil
}

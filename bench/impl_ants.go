package main

import (
	"sync"

	"github.com/panjf2000/ants/v2"
)

// ants: ants.NewPool(workers) and a sync.WaitGroup, as its README shows.
// Submit blocks while all workers are busy (the default, blocking mode).
type antsPool struct {
	p  *ants.Pool
	wg sync.WaitGroup
}

func newAnts(workers int) pool {
	p, err := ants.NewPool(workers)
	if err != nil {
		panic(err)
	}
	return &antsPool{p: p}
}

func (p *antsPool) Go(f func()) {
	p.wg.Add(1)
	if err := p.p.Submit(func() { defer p.wg.Done(); f() }); err != nil {
		panic(err)
	}
}
func (p *antsPool) Wait()  { p.wg.Wait() }
func (p *antsPool) Close() { p.p.Release() }

package main

import (
	"sync"
	"sync/atomic"

	"github.com/alitto/pond/v2"
)

// pond: pond.NewPool(workers) (unbounded queue, the default) with
// fire-and-forget pool.Go and a sync.WaitGroup. (A pond TaskGroup only
// counts the tasks submitted before its Wait, so tasks that submit tasks
// use the WaitGroup.)
type pondPool struct {
	p  pond.Pool
	wg sync.WaitGroup
}

func newPond(workers int) pool { return &pondPool{p: pond.NewPool(workers)} }

func (p *pondPool) Go(f func()) {
	p.wg.Add(1)
	if err := p.p.Go(func() { defer p.wg.Done(); f() }); err != nil {
		panic(err)
	}
}
func (p *pondPool) Wait()  { p.wg.Wait() }
func (p *pondPool) Close() { p.p.StopAndWait() }

// memoryPond queues n tasks behind workers gate tasks.
func memoryPond(r *Run) (int64, error) {
	n, workers := r.Param, r.Workers
	gate := make(chan struct{})
	var started sync.WaitGroup
	var ran atomic.Int64
	task := func() { ran.Add(1) }
	before := liveBytes()
	p := pond.NewPool(workers)
	started.Add(workers)
	for range workers {
		p.Go(func() { started.Done(); <-gate })
	}
	started.Wait()
	r.Start()
	for range n {
		if err := p.Go(task); err != nil {
			return 0, err
		}
	}
	r.Stop()
	r.BytesPerTask = float64(liveBytes()-before) / float64(n)
	close(gate)
	p.StopAndWait()
	return ran.Load(), nil
}

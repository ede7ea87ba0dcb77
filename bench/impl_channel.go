package main

import (
	"sync"
	"sync/atomic"
)

// channel: workers goroutines ranging over one buffered channel of funcs.
type channelPool struct {
	ch chan func()
	wg sync.WaitGroup
}

const channelBuffer = 1024

func newChannel(workers int) pool { return newChannelCap(workers, channelBuffer) }

func newChannelCap(workers, buf int) *channelPool {
	p := &channelPool{ch: make(chan func(), buf)}
	for range workers {
		go func() {
			for f := range p.ch {
				f()
				p.wg.Done()
			}
		}()
	}
	return p
}

func (p *channelPool) Go(f func()) {
	p.wg.Add(1)
	p.ch <- f
}
func (p *channelPool) Wait()  { p.wg.Wait() }
func (p *channelPool) Close() { close(p.ch) }

// memoryChannel queues n funcs in a channel with room for all of them,
// behind workers gate tasks.
func memoryChannel(r *Run) (int64, error) {
	n, workers := r.Param, r.Workers
	gate := make(chan struct{})
	var started sync.WaitGroup
	var ran atomic.Int64
	task := func() { ran.Add(1) }
	before := liveBytes()
	p := newChannelCap(workers, n+workers)
	started.Add(workers)
	for range workers {
		p.Go(func() { started.Done(); <-gate })
	}
	started.Wait()
	r.Start()
	for range n {
		p.Go(task)
	}
	r.Stop()
	r.BytesPerTask = float64(liveBytes()-before) / float64(n)
	close(gate)
	p.Wait()
	p.Close()
	return ran.Load(), nil
}

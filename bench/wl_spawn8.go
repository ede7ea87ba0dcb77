package main

import (
	"context"
	"sync"
	"time"

	"github.com/worksteal/steal"
)

// spawn8Producers is how many goroutines submit in spawn8.
const spawn8Producers = 8

// spawn8: param tiny tasks submitted from eight goroutines outside the
// pool, each task a fresh closure; the pools that queue without bound
// against a channel of funcs (which blocks its producers at 1024).
var spawn8Workload = &Workload{
	Name:    "spawn8",
	About:   "param tiny tasks, each a fresh closure, submitted from eight goroutines outside the pool",
	Default: 1_000_000, Tiny: 10_000, Timeout: 60 * time.Second,
	Tasks: func(n int) int64 { return int64(n) },
	Want:  func(n int) int64 { return int64(n) },
	Impls: append([]Impl{{"steal", spawn8Steal}, {"steal-batch", spawn8BatchSteal}, {"steal-go", spawn8GoSteal}, {"steal-go-max", spawn8GoMaxSteal}}, pickImpls(peerImpls(spawn8Peer), "goroutines", "ants", "pond", "channel")...),
}

// pickImpls keeps the named implementations of impls.
func pickImpls(impls []Impl, names ...string) []Impl {
	var out []Impl
	for _, im := range impls {
		for _, n := range names {
			if im.Name == n {
				out = append(out, im)
			}
		}
	}
	return out
}

// produce8 calls submit(k) for k in [0, n) from spawn8Producers goroutines
// and returns once all have returned, or the first error.
func produce8(n int, submit func(k int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, spawn8Producers)
	for g := range spawn8Producers {
		wg.Go(func() {
			for k := g; k < n; k += spawn8Producers {
				if err := submit(k); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr(errs)
}

// firstErr returns the first error in errs that is not nil, or nil.
func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func spawn8Peer(r *Run, np newPool) (int64, error) {
	p := np(r.Workers)
	var count counter
	r.Start()
	produce8(r.Param, func(k int) error {
		p.Go(func() { count.n.Add(int64(k&1) + 1) })
		return nil
	})
	p.Wait()
	r.Stop()
	p.Close()
	return count.load() - int64(r.Param/2), nil
}

// spawn8Run is spawnRun for spawn8, whose tasks count k&1 + 1 each: it
// returns the count less the odd ks' extra, which is the number of tasks.
func spawn8Run(r *Run, queue func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error, opts ...steal.Option) (int64, error) {
	n, err := spawnRun(r, queue, opts...)
	if err != nil {
		return 0, err
	}
	return n - int64(r.Param/2), nil
}

// spawn8BatchSteal: SubmitBatch from eight goroutines outside the pool,
// each handing over its closures 64 at a time.
func spawn8BatchSteal(r *Run) (int64, error) {
	return spawn8Run(r, func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		ctx := context.Background()
		errs := make([]error, spawn8Producers)
		var prod sync.WaitGroup
		for g := range spawn8Producers {
			prod.Go(func() {
				batch := make([]func(*steal.Worker), 0, batchSize)
				for k := g; k < r.Param; k += spawn8Producers {
					batch = append(batch, func(*steal.Worker) { count.n.Add(int64(k&1) + 1); wg.Done() })
					if len(batch) == batchSize || k+spawn8Producers >= r.Param {
						if _, err := p.SubmitBatch(ctx, batch); err != nil {
							errs[g] = err
							return
						}
						batch = batch[:0]
					}
				}
			})
		}
		prod.Wait()
		return firstErr(errs)
	})
}

// spawn8GoSteal: Pool.Go (a func(), as the peers and the channel take)
// from eight goroutines outside the pool.
func spawn8GoSteal(r *Run) (int64, error) { return spawn8Run(r, spawn8GoQueue(r.Param)) }

// spawn8GoMaxSteal is spawn8GoSteal with WithMaxQueued(channelBuffer): the
// producers wait at the same bound as the channel's.
func spawn8GoMaxSteal(r *Run) (int64, error) {
	return spawn8Run(r, spawn8GoQueue(r.Param), steal.WithMaxQueued(channelBuffer))
}

// spawn8GoQueue queues n tiny func() tasks with Pool.Go from eight
// goroutines, each a fresh closure.
func spawn8GoQueue(n int) func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
	return func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		return produce8(n, func(k int) error {
			return p.Go(func() { count.n.Add(int64(k&1) + 1); wg.Done() })
		})
	}
}

// spawn8Steal: Submit from eight goroutines outside the pool.
func spawn8Steal(r *Run) (int64, error) {
	return spawn8Run(r, func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		ctx := context.Background()
		return produce8(r.Param, func(k int) error {
			return p.Submit(ctx, func(*steal.Worker) { count.n.Add(int64(k&1) + 1); wg.Done() })
		})
	})
}

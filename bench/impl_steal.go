package main

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/worksteal/steal"
)

// steal: this library. A pool of workers (GOMAXPROCS) per run; tasks from
// outside go through Submit, tasks from inside through Worker.Spawn,
// fork-join through Fork2 (steal) or Join with closures (steal-join), and
// waiting for children through NewGroup and Wait.

func newSteal(r *Run, opts ...steal.Option) *steal.Pool {
	return steal.New(append(opts, steal.WithWorkers(r.Workers))...)
}

// closeSteal closes p and turns a recovered task panic into an error.
func closeSteal(p *steal.Pool) error { return p.Close() }

func fibSteal(w *steal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := steal.Fork2(w, fibSteal, n-1, n-2)
	return a + b
}

func fibStealJoin(w *steal.Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	steal.Join(w, func(w *steal.Worker) { a = fibStealJoin(w, n-1) }, func(w *steal.Worker) { b = fibStealJoin(w, n-2) })
	return a + b
}

// runSteal runs fn as one task on a fresh pool, timing only fn.
func runSteal(r *Run, fn func(w *steal.Worker)) error {
	p := newSteal(r)
	r.Start()
	err := p.Run(fn)
	r.Stop()
	if cerr := closeSteal(p); err == nil {
		err = cerr
	}
	return err
}

// span is a slice to sort and its scratch space, Fork2's argument.
type span struct{ a, tmp []int }

func sortSteal(w *steal.Worker, s span) struct{} {
	if len(s.a) <= sortCutoff {
		sortLeaf(s.a)
		return struct{}{}
	}
	m := len(s.a) / 2
	steal.Fork2(w, sortSteal, span{s.a[:m], s.tmp[:m]}, span{s.a[m:], s.tmp[m:]})
	merge(s.a, s.tmp, m)
	return struct{}{}
}

func sortStealJoin(w *steal.Worker, a, tmp []int) {
	if len(a) <= sortCutoff {
		sortLeaf(a)
		return
	}
	m := len(a) / 2
	steal.Join(w,
		func(w *steal.Worker) { sortStealJoin(w, a[:m], tmp[:m]) },
		func(w *steal.Worker) { sortStealJoin(w, a[m:], tmp[m:]) })
	merge(a, tmp, m)
}

// spawnRun times the r.Param tiny tasks that queue puts on a fresh pool,
// from the first queued to the last finished, and returns count. Each task
// must add to count and call wg.Done once. opts configure the pool.
func spawnRun(r *Run, queue func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error, opts ...steal.Option) (int64, error) {
	p := newSteal(r, opts...)
	var count counter
	var wg sync.WaitGroup
	r.Start()
	wg.Add(r.Param)
	if err := queue(p, &count, &wg); err != nil {
		return 0, err
	}
	wg.Wait()
	r.Stop()
	return count.load(), closeSteal(p)
}

// spawnSteal: Submit from one goroutine outside the pool.
func spawnSteal(r *Run) (int64, error) {
	return spawnRun(r, func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		task := func(*steal.Worker) { count.add(); wg.Done() }
		ctx := context.Background()
		for range r.Param {
			if err := p.Submit(ctx, task); err != nil {
				return err
			}
		}
		return nil
	})
}

// batchSize is how many functions steal-batch hands SubmitBatch at once.
const batchSize = 64

// spawnBatchSteal: SubmitBatch from one goroutine outside the pool, 64
// functions at a time.
func spawnBatchSteal(r *Run) (int64, error) {
	return spawnRun(r, func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		task := func(*steal.Worker) { count.add(); wg.Done() }
		ctx := context.Background()
		batch := make([]func(*steal.Worker), batchSize)
		for i := range batch {
			batch[i] = task
		}
		for i := 0; i < r.Param; i += batchSize {
			if _, err := p.SubmitBatch(ctx, batch[:min(batchSize, r.Param-i)]); err != nil {
				return err
			}
		}
		return nil
	})
}

// spawnGoSteal: Pool.Go from one goroutine outside the pool: a func(), as
// the peers and the channel take, with no handle.
func spawnGoSteal(r *Run) (int64, error) { return spawnRun(r, spawnGoQueue(r.Param)) }

// spawnGoQueue queues n tiny func() tasks with Pool.Go.
func spawnGoQueue(n int) func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
	return func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		task := func() { count.add(); wg.Done() }
		for range n {
			if err := p.Go(task); err != nil {
				return err
			}
		}
		return nil
	}
}

// spawnGoMaxSteal is spawnGoSteal with WithMaxQueued(channelBuffer): the
// producer waits at the same bound as the channel's.
func spawnGoMaxSteal(r *Run) (int64, error) {
	return spawnRun(r, spawnGoQueue(r.Param), steal.WithMaxQueued(channelBuffer))
}

// spawnInnerSteal: Worker.Spawn from inside one task.
func spawnInnerSteal(r *Run) (int64, error) {
	return spawnRun(r, func(p *steal.Pool, count *counter, wg *sync.WaitGroup) error {
		task := func(*steal.Worker) { count.add(); wg.Done() }
		return p.Run(func(w *steal.Worker) {
			for range r.Param {
				w.Spawn(task)
			}
		})
	})
}

// chainedSteal: each task spawns the next.
func chainedSteal(r *Run) (int64, error) {
	n := int64(r.Param)
	p := newSteal(r)
	var count counter
	done := make(chan struct{})
	var step func(w *steal.Worker)
	step = func(w *steal.Worker) {
		if count.add() < n {
			w.Spawn(step)
		} else {
			close(done)
		}
	}
	r.Start()
	if err := p.Submit(context.Background(), step); err != nil {
		return 0, err
	}
	<-done
	r.Stop()
	return count.load(), closeSteal(p)
}

// nestedSteal: a group per node, each task waiting for its children.
func nestedSteal(r *Run) (int64, error) {
	var leaves counter
	var node func(w *steal.Worker, depth int) error
	node = func(w *steal.Worker, depth int) error {
		if depth == 0 {
			leaves.add()
			return nil
		}
		g := steal.NewGroup(w)
		for range fanOut {
			g.Go(func(w *steal.Worker) error { return node(w, depth-1) })
		}
		return g.Wait()
	}
	var err error
	if rerr := runSteal(r, func(w *steal.Worker) { err = node(w, r.Param) }); rerr != nil {
		return 0, rerr
	}
	return leaves.load(), err
}

// imbalancedSteal: the classic imbalanced demo, one task spawning every task onto its
// own worker; the others must steal.
func imbalancedSteal(r *Run) (int64, error) {
	data := imbalancedData(r.Param)
	p := newSteal(r)
	var sum atomic.Int64
	var wg sync.WaitGroup
	task := func(*steal.Worker) { sum.Add(sumInts(data)); wg.Done() }
	r.Start()
	wg.Add(imbalancedTasks)
	if err := p.Run(func(w *steal.Worker) {
		for range imbalancedTasks {
			w.Spawn(task)
		}
	}); err != nil {
		return 0, err
	}
	wg.Wait()
	r.Stop()
	return sum.Load(), closeSteal(p)
}

// idleSteal: a batch submitted from outside, then an idle pool.
func idleSteal(r *Run) (int64, error) {
	p := newSteal(r)
	var count counter
	var wg sync.WaitGroup
	task := func(*steal.Worker) { count.add(); wg.Done() }
	wg.Add(idleBatch)
	for range idleBatch {
		p.Submit(context.Background(), task)
	}
	wg.Wait()
	measureIdle(r)
	return count.load(), closeSteal(p)
}

// memorySteal: workers gate tasks hold every worker, then n Submits queue.
func memorySteal(r *Run) (int64, error) {
	n, workers := r.Param, r.Workers
	gate := make(chan struct{})
	var started sync.WaitGroup
	var ran atomic.Int64
	task := func(*steal.Worker) { ran.Add(1) }
	ctx := context.Background()
	before := liveBytes()
	p := newSteal(r)
	started.Add(workers)
	for range workers {
		p.Submit(ctx, func(*steal.Worker) { started.Done(); <-gate })
	}
	started.Wait()
	r.Start()
	for range n {
		if err := p.Submit(ctx, task); err != nil {
			return 0, err
		}
	}
	r.Stop()
	r.BytesPerTask = float64(liveBytes()-before) / float64(n)
	close(gate)
	err := closeSteal(p)
	return ran.Load(), err
}

package steal

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkSubmitProducers: 1,000,000 tiny tasks per iteration, each a
// fresh closure, submitted from outside the pool by one or eight
// goroutines, to a pool with and without WithMaxQueued(1024), and, as the
// yardstick in the same run, to a buffered channel of funcs (1024 slots)
// consumed by GOMAXPROCS goroutines. steal-ctx submits with a cancellable
// context, as a server passes its request's, where the others pass
// context.Background(). steal-go queues func() closures with Pool.Go, as
// the channel carries them (steal-go-max1024: under WithMaxQueued(1024),
// the channel's own bound); steal-batch hands SubmitBatch 64 closures at a
// time. BenchmarkSubmitEmpty measures the same forms without the per-task
// counting. Compare ns/task within one run:
//
//	go test -run XXX -bench SubmitProducers -benchtime 3x .
//
// floor-batched is a yardstick, not a pool: what any pool that gives each
// task its own handle must at least spend. Each producer hands its funcs
// over 128 at a time, the way an ideal per-producer queue would, and the
// consumers give every task a fresh 48-byte record from slabs of 10 (as
// the pool does, so that a handle kept past its task can be refused) and
// call it under a deferred recover. It skips everything else the pool
// does: stealing, wakeups, cancellation, statistics, WithMaxQueued.
func BenchmarkSubmitProducers(b *testing.B) {
	for _, producers := range []int{1, 8} {
		name := "p" + strconv.Itoa(producers)
		b.Run(name+"/steal", func(b *testing.B) { benchSubmit(b, producers, New(), context.Background()) })
		b.Run(name+"/steal-ctx", func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			benchSubmit(b, producers, New(), ctx)
		})
		b.Run(name+"/steal-max1024", func(b *testing.B) { benchSubmit(b, producers, New(WithMaxQueued(1024)), context.Background()) })
		b.Run(name+"/steal-go", func(b *testing.B) { benchGo(b, producers, New()) })
		b.Run(name+"/steal-go-max1024", func(b *testing.B) { benchGo(b, producers, New(WithMaxQueued(1024))) })
		b.Run(name+"/steal-batch", func(b *testing.B) { benchSubmitBatch(b, producers, New()) })
		b.Run(name+"/steal-batch-max1024", func(b *testing.B) { benchSubmitBatch(b, producers, New(WithMaxQueued(1024))) })
		b.Run(name+"/channel", func(b *testing.B) { benchChannel(b, producers) })
		b.Run(name+"/floor-batched", func(b *testing.B) { benchFloorBatched(b, producers) })
	}
}

// benchProduce runs producers goroutines that together call submit
// spawn1M times, for k from 0 up, and waits until all ran. submit queues a
// fresh closure that calls done(k).
func benchProduce(b *testing.B, producers int, submit func(k int, done func(int))) {
	var n atomic.Int64
	var wg sync.WaitGroup
	done := func(k int) { n.Add(int64(k & 1)); wg.Done() }
	b.ResetTimer()
	for range b.N {
		n.Store(0)
		wg.Add(spawn1M)
		var prod sync.WaitGroup
		for i := range producers {
			prod.Go(func() {
				for k := i; k < spawn1M; k += producers {
					submit(k, done)
				}
			})
		}
		prod.Wait()
		wg.Wait()
	}
	b.StopTimer()
	if got, want := n.Load(), int64(spawn1M/2); got != want {
		b.Fatalf("tasks counted %d, want %d", got, want)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spawn1M), "ns/task")
}

func benchSubmit(b *testing.B, producers int, p *Pool, ctx context.Context) {
	defer p.Close()
	benchProduce(b, producers, func(k int, done func(int)) {
		if err := p.Submit(ctx, func(*Worker) { done(k) }); err != nil {
			b.Error(err)
		}
	})
	reportSchedCounts(b, p, b.N*spawn1M)
}

// reportSchedCounts reports how often, per thousand tasks, a worker was
// woken, parked and took a batch from the inject queue: the scheduler's
// overheads that ns/task alone hides.
func reportSchedCounts(b *testing.B, p *Pool, tasks int) {
	s := p.Stats().Total
	per := func(n uint64) float64 { return float64(n) * 1000 / float64(tasks) }
	b.ReportMetric(per(s.Wakeups), "wakeups/ktask")
	b.ReportMetric(per(s.Parks), "parks/ktask")
	b.ReportMetric(per(s.GlobalGrabs), "grabs/ktask")
}

// benchGo queues each closure with Pool.Go: a func(), like the channel's.
func benchGo(b *testing.B, producers int, p *Pool) {
	defer p.Close()
	benchProduce(b, producers, func(k int, done func(int)) {
		if err := p.Go(func() { done(k) }); err != nil {
			b.Error(err)
		}
	})
	reportSchedCounts(b, p, b.N*spawn1M)
}

// benchSubmitBatch has each producer hand its closures to SubmitBatch
// submitChunk at a time.
func benchSubmitBatch(b *testing.B, producers int, p *Pool) {
	defer p.Close()
	batches := make([][]func(*Worker), producers)
	ctx := context.Background()
	benchProduce(b, producers, func(k int, done func(int)) {
		i := k % producers // benchProduce gives producer i the k with k%producers == i
		batches[i] = append(batches[i], func(*Worker) { done(k) })
		if len(batches[i]) == submitChunk || k+producers >= spawn1M {
			if n, err := p.SubmitBatch(ctx, batches[i]); err != nil || n != len(batches[i]) {
				b.Errorf("SubmitBatch: %d of %d, %v", n, len(batches[i]), err)
			}
			batches[i] = batches[i][:0]
		}
	})
	reportSchedCounts(b, p, b.N*spawn1M)
}

func benchChannel(b *testing.B, producers int) {
	ch := make(chan func(), 1024)
	var done sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		done.Go(func() {
			for f := range ch {
				f()
			}
		})
	}
	benchProduce(b, producers, func(k int, done func(int)) { ch <- func() { done(k) } })
	close(ch)
	done.Wait()
}

// floorBatch is how many funcs a floor-batched producer hands over at once.
const floorBatch = 128

func benchFloorBatched(b *testing.B, producers int) {
	ch := make(chan []func(*Worker), 64)
	var done sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		done.Go(func() { floorConsume(ch) })
	}
	batches := make([][]func(*Worker), producers)
	benchProduce(b, producers, func(k int, done func(int)) {
		i := k % producers // benchProduce gives producer i the k with k%producers == i
		batches[i] = append(batches[i], func(*Worker) { done(k) })
		if len(batches[i]) == floorBatch || k+producers >= spawn1M {
			ch <- batches[i]
			batches[i] = make([]func(*Worker), 0, floorBatch)
		}
	})
	close(ch)
	done.Wait()
}

// floorConsume runs every func of every batch with a fresh record each.
func floorConsume(ch <-chan []func(*Worker)) {
	ctx := context.Background()
	var slab []task
	for fs := range ch {
		for _, fn := range fs {
			if len(slab) == 0 {
				slab = make([]task, recordSlab)
			}
			t := &slab[0]
			slab = slab[1:]
			t.fn, t.ctx = fn, ctx
			floorCall(t)
			t.fn, t.ctx = nil, nil
		}
	}
}

func floorCall(t *task) {
	defer func() {
		if r := recover(); r != nil {
			panic(r)
		}
	}()
	t.fn(t)
}

// BenchmarkSubmitEmpty is BenchmarkSubmitProducers with tasks that do
// nothing. There, every task adds to a shared sum and calls Done on a
// shared WaitGroup: two atomic adds on cache lines that all consumers
// write, which on two workers cost about as much as the scheduling and
// move the figures by a third from run to run. Here the closures are as
// fresh (each captures its k) but empty, and completion is learnt once
// per run, not per task: the pool's Close, which runs every queued task,
// and the channel consumers' exit once the channel is closed and drained.
// Each run starts a fresh pool, or fresh consumers, and both are timed.
// The pool's count comes from Stats, which is exact once it is closed;
// each channel consumer counts on its own. What remains is the cost of
// handing a task over and running it: compare ns/task within one run.
//
//	go test -run XXX -bench SubmitEmpty -benchtime 3x .
func BenchmarkSubmitEmpty(b *testing.B) {
	for _, producers := range []int{1, 8} {
		name := "p" + strconv.Itoa(producers)
		b.Run(name+"/steal", func(b *testing.B) {
			benchEmpty(b, producers, func() emptyRun {
				p := New()
				ctx := context.Background()
				return poolRun(p, func(k int) error {
					return p.Submit(ctx, func(*Worker) { emptyTask(k) })
				})
			})
		})
		for _, max := range []int{0, 1024} {
			impl := "/steal-go"
			if max > 0 {
				impl += "-max" + strconv.Itoa(max)
			}
			b.Run(name+impl, func(b *testing.B) {
				benchEmpty(b, producers, func() emptyRun {
					p := New(WithMaxQueued(max))
					return poolRun(p, func(k int) error { return p.Go(func() { emptyTask(k) }) })
				})
			})
		}
		b.Run(name+"/channel", func(b *testing.B) { benchEmpty(b, producers, channelRun) })
	}
}

// emptyRun is one run of BenchmarkSubmitEmpty: submit queues the task for
// k, end waits until every queued task ran and says how many did.
type emptyRun struct {
	submit func(k int) error
	end    func() uint64
}

// emptyTask is every task's body: nothing, behind a test the compiler
// cannot drop, so that each closure must keep its k.
func emptyTask(k int) {
	if k < 0 {
		panic(k)
	}
}

func poolRun(p *Pool, submit func(k int) error) emptyRun {
	return emptyRun{submit, func() uint64 {
		if err := p.Close(); err != nil {
			panic(err)
		}
		return p.Stats().Total.Ran
	}}
}

// channelRun starts GOMAXPROCS consumers of a buffered channel of funcs
// (1024 slots), each counting what it ran in its own padded slot.
func channelRun() emptyRun {
	ch := make(chan func(), 1024)
	consumers := runtime.GOMAXPROCS(0)
	ran := make([]struct {
		n uint64
		_ [56]byte
	}, consumers)
	var wg sync.WaitGroup
	for c := range consumers {
		wg.Go(func() {
			for f := range ch {
				f()
				ran[c].n++
			}
		})
	}
	return emptyRun{
		submit: func(k int) error { ch <- func() { emptyTask(k) }; return nil },
		end: func() uint64 {
			close(ch)
			wg.Wait()
			var n uint64
			for _, r := range ran {
				n += r.n
			}
			return n
		},
	}
}

// benchEmpty times b.N runs of spawn1M empty tasks submitted from
// producers goroutines to what start returns.
func benchEmpty(b *testing.B, producers int, start func() emptyRun) {
	for range b.N {
		r := start()
		var prod sync.WaitGroup
		for i := range producers {
			prod.Go(func() {
				for k := i; k < spawn1M; k += producers {
					if err := r.submit(k); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		prod.Wait()
		if n := r.end(); n != spawn1M {
			b.Fatalf("ran %d tasks, want %d", n, spawn1M)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spawn1M), "ns/task")
}

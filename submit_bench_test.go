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
// consumed by GOMAXPROCS goroutines. Compare ns/task within one run:
//
//	go test -run XXX -bench SubmitProducers -benchtime 3x .
func BenchmarkSubmitProducers(b *testing.B) {
	for _, producers := range []int{1, 8} {
		name := "p" + strconv.Itoa(producers)
		b.Run(name+"/steal", func(b *testing.B) { benchSubmit(b, producers, New()) })
		b.Run(name+"/steal-max1024", func(b *testing.B) { benchSubmit(b, producers, New(WithMaxQueued(1024))) })
		b.Run(name+"/channel", func(b *testing.B) { benchChannel(b, producers) })
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

func benchSubmit(b *testing.B, producers int, p *Pool) {
	defer p.Close()
	ctx := context.Background()
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

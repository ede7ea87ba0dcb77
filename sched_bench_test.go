package steal

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The scheduler benchmarks. Run them with
//
//	go test -run XXX -bench 'Spawn1M|ChainedSpawn|PingPong|SpawnMany|YieldMany|Imbalanced' -benchtime 3x .
//
// Each "goroutines" sub-benchmark does the same work with a goroutine per
// task and sync primitives, for comparison.

const spawn1M = 1_000_000

// BenchmarkSpawn1M: 1,000,000 tiny tasks per iteration, submitted from one
// outside goroutine, spawned from inside one task, or started as
// goroutines. Every variant counts completion with one sync.WaitGroup.
func BenchmarkSpawn1M(b *testing.B) {
	b.Run("steal-submit", func(b *testing.B) {
		p := New()
		defer p.Close()
		var wg sync.WaitGroup
		fn := func(*Worker) { wg.Done() }
		ctx := context.Background()
		b.ResetTimer()
		for range b.N {
			wg.Add(spawn1M)
			for range spawn1M {
				p.Submit(ctx, fn)
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spawn1M), "ns/task")
	})
	b.Run("steal-spawn-inner", func(b *testing.B) {
		p := New()
		defer p.Close()
		var wg sync.WaitGroup
		fn := func(*Worker) { wg.Done() }
		root := func(w *Worker) {
			for range spawn1M {
				w.Spawn(fn)
			}
		}
		b.ResetTimer()
		for range b.N {
			wg.Add(spawn1M)
			p.Submit(context.Background(), root)
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spawn1M), "ns/task")
	})
	b.Run("goroutines", func(b *testing.B) {
		var wg sync.WaitGroup
		fn := func() { wg.Done() }
		for range b.N {
			wg.Add(spawn1M)
			for range spawn1M {
				go fn()
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spawn1M), "ns/task")
	})
}

// The Tokio scheduler benchmarks (tokio/benches/rt_multi_threaded.rs),
// with run-to-completion tasks: where a Tokio task awaits, ours spawns its
// continuation.

// BenchmarkChainedSpawn: a task spawns the next, 1000 deep.
func BenchmarkChainedSpawn(b *testing.B) {
	const iter = 1000
	b.Run("steal", func(b *testing.B) {
		p := New()
		defer p.Close()
		done := make(chan struct{})
		var chain func(n int) func(*Worker)
		chain = func(n int) func(*Worker) {
			return func(w *Worker) {
				if n == 0 {
					done <- struct{}{}
					return
				}
				w.Spawn(chain(n - 1))
			}
		}
		for range b.N {
			p.Submit(context.Background(), chain(iter))
			<-done
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		done := make(chan struct{})
		var chain func(n int)
		chain = func(n int) {
			if n == 0 {
				done <- struct{}{}
				return
			}
			go chain(n - 1)
		}
		for range b.N {
			go chain(iter)
			<-done
		}
	})
}

// BenchmarkPingPong: 1000 pings at once; each ping spawns a pong and the
// pong spawns the ping's reply (Tokio: two oneshot channels per ping).
func BenchmarkPingPong(b *testing.B) {
	const pings = 1000
	b.Run("steal", func(b *testing.B) {
		p := New()
		defer p.Close()
		var rem atomic.Int64
		done := make(chan struct{})
		reply := func(*Worker) {
			if rem.Add(-1) == 0 {
				done <- struct{}{}
			}
		}
		pong := func(w *Worker) { w.Spawn(reply) }
		ping := func(w *Worker) { w.Spawn(pong) }
		root := func(w *Worker) {
			for range pings {
				w.Spawn(ping)
			}
		}
		for range b.N {
			rem.Store(pings)
			p.Submit(context.Background(), root)
			<-done
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		var rem atomic.Int64
		done := make(chan struct{})
		for range b.N {
			rem.Store(pings)
			go func() {
				for range pings {
					go func() {
						tx1, tx2 := make(chan struct{}, 1), make(chan struct{}, 1)
						go func() { <-tx1; tx2 <- struct{}{} }()
						tx1 <- struct{}{}
						<-tx2
						if rem.Add(-1) == 0 {
							done <- struct{}{}
						}
					}()
				}
			}()
			<-done
		}
	})
}

// BenchmarkSpawnMany: 10,000 tiny tasks, spawned from inside a task
// (local) or submitted from outside (remote).
func BenchmarkSpawnMany(b *testing.B) {
	const n = 10_000
	for _, mode := range []string{"local", "remote"} {
		b.Run("steal-"+mode, func(b *testing.B) {
			p := New()
			defer p.Close()
			var wg sync.WaitGroup
			fn := func(*Worker) { wg.Done() }
			root := func(w *Worker) {
				for range n {
					w.Spawn(fn)
				}
			}
			for range b.N {
				wg.Add(n)
				if mode == "local" {
					p.Submit(context.Background(), root)
				} else {
					for range n {
						p.Submit(context.Background(), fn)
					}
				}
				wg.Wait()
			}
		})
	}
	b.Run("goroutines", func(b *testing.B) {
		var wg sync.WaitGroup
		for range b.N {
			wg.Add(n)
			for range n {
				go wg.Done()
			}
			wg.Wait()
		}
	})
}

// BenchmarkYieldMany: 200 tasks each yield 1000 times; a task yields by
// spawning itself as its continuation (goroutines: runtime.Gosched).
func BenchmarkYieldMany(b *testing.B) {
	const tasks, yields = 200, 1000
	b.Run("steal", func(b *testing.B) {
		p := New()
		defer p.Close()
		var wg sync.WaitGroup
		var yielder func(n int) func(*Worker)
		yielder = func(n int) func(*Worker) {
			return func(w *Worker) {
				if n == 0 {
					wg.Done()
					return
				}
				w.Spawn(yielder(n - 1))
			}
		}
		for range b.N {
			wg.Add(tasks)
			for range tasks {
				p.Submit(context.Background(), yielder(yields))
			}
			wg.Wait()
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		var wg sync.WaitGroup
		for range b.N {
			wg.Add(tasks)
			for range tasks {
				go func() {
					for range yields {
						runtime.Gosched()
					}
					wg.Done()
				}()
			}
			wg.Wait()
		}
	})
}

// imbalancedData is what the imbalanced demo's tasks sum.
var imbalancedData = func() []int {
	d := make([]int, 1_000_000)
	for i := range d {
		d[i] = i
	}
	return d
}()

// imbalancedT1 is the workers=1 time per iteration, for the efficiency of
// the workers=GOMAXPROCS run that follows it.
var imbalancedT1 time.Duration

// BenchmarkImbalanced is the classic imbalanced demo: one task spawns 1000
// tasks, each summing 1e6 ints, all onto its own worker; the others must
// steal. The workers=W sub-benchmark reports the parallel efficiency
// T1/(W*TW) against workers=1 run just before it.
func BenchmarkImbalanced(b *testing.B) {
	run := func(b *testing.B, workers int) time.Duration {
		p := New(WithWorkers(workers))
		defer p.Close()
		var wg sync.WaitGroup
		var sink atomic.Int64
		task := func(*Worker) {
			s := 0
			for _, v := range imbalancedData {
				s += v
			}
			sink.Add(int64(s))
			wg.Done()
		}
		root := func(w *Worker) {
			for range 1000 {
				w.Spawn(task)
			}
		}
		b.ResetTimer()
		for range b.N {
			wg.Add(1000)
			p.Submit(context.Background(), root)
			wg.Wait()
		}
		return b.Elapsed() / time.Duration(b.N)
	}
	b.Run("workers=1", func(b *testing.B) { imbalancedT1 = run(b, 1) })
	w := runtime.GOMAXPROCS(0)
	b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
		tw := run(b, w)
		if imbalancedT1 > 0 {
			eff := float64(imbalancedT1) / (float64(w) * float64(tw))
			b.ReportMetric(eff, "efficiency")
		}
	})
}

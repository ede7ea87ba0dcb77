package steal

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGoRecordsReuseChaos: Go functions that panic, Goexit, call
// Pool.Run (keeping the handle), wait on futures (running reused records
// beneath them), and queue more Go functions from inside, with every task
// timed and a small backlog (forced entries), run exactly once, and every
// kept handle stays refused.
func TestGoRecordsReuseChaos(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var panics atomic.Int64
		p := New(WithWorkers(workers), WithQueueWaitSampling(1), WithMaxQueued(64),
			WithPanicHandler(func(*PanicError) { panics.Add(1) }))
		const n = 20000
		var runs [2 * n]atomic.Int32
		var kept sync.Map
		var wg sync.WaitGroup
		var body func(i int) func()
		body = func(i int) func() {
			return func() {
				defer wg.Done()
				runs[i].Add(1)
				switch i % 7 {
				case 1:
					if i < n {
						wg.Add(1)
						if err := p.Go(body(i + n)); err != nil { // from inside: forced past the cap
							panic(err)
						}
					}
				case 2:
					p.Run(func(w *Worker) { kept.Store(i, w) })
				case 3:
					f, err := PoolSpawn(nil, p, func(*Worker) int { return i })
					if err != nil {
						panic(err)
					}
					if v, err := f.WaitContext(context.Background()); err != nil || v != i {
						panic("future")
					}
				case 4:
					if i%14 == 4 {
						runtime.Goexit()
					}
				case 5:
					if i%35 == 5 {
						panic("boom")
					}
				}
			}
		}
		for i := 0; i < n; i++ {
			wg.Add(1)
			if err := p.Go(body(i)); err != nil {
				t.Fatal(err)
			}
		}
		wg.Wait()
		// Kept handles must still be refused, while reused records run.
		refused := make(chan bool, 1)
		kept.Range(func(k, v any) bool {
			w := v.(*Worker)
			wg.Add(1)
			p.Go(func() {
				defer wg.Done()
				defer func() { refused <- recover() != nil }()
				w.Spawn(func(*Worker) {})
			})
			if !<-refused {
				t.Fatalf("kept handle %v accepted", k)
			}
			return true
		})
		wg.Wait()
		p.Close()
		for i := range runs {
			want := int32(1)
			if i >= n && (i-n)%7 != 1 {
				want = 0
			}
			if got := runs[i].Load(); got != want {
				t.Fatalf("workers %d: task %d ran %d times, want %d", workers, i, got, want)
			}
		}
	}
}

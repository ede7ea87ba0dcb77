package steal

import (
	"context"
	"io"
	"runtime/trace"
	"sync"
	"testing"
)

// BenchmarkObserve: what watching tasks costs, per tiny task (a
// WaitGroup.Done), spawned from inside a named task as in
// BenchmarkSpawn1M's steal-spawn-inner (a pool is started and closed per
// 100,000 tasks). Run it with
//
//	go test -run XXX -bench Observe -count 5 .
//
// "off" is the default pool with the tracer off; "no-context" is "off"
// with the root submitted with context.Background() instead of a named
// context, whose tasks get a cancellable context each; "tracer" runs under
// runtime/trace writing to io.Discard; "labels" sets WithProfileLabels;
// "timeline" records WithTimeline.
func BenchmarkObserve(b *testing.B) {
	const tasks = 100_000
	for _, c := range []struct {
		name   string
		opts   []Option
		tracer bool
	}{
		{"off", nil, false},
		{"no-context", nil, false},
		{"tracer", nil, true},
		{"labels", []Option{WithProfileLabels()}, false},
		{"timeline", []Option{WithTimeline(tasks + 1000)}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.tracer {
				if err := trace.Start(io.Discard); err != nil {
					b.Skipf("tracer busy: %v", err)
				}
				defer trace.Stop()
			}
			var wg sync.WaitGroup
			fn := func(*Worker) { wg.Done() }
			root := func(w *Worker) {
				for range tasks {
					w.Spawn(fn)
				}
				// Spawned tasks see root's context, which Submit cancels
				// when root returns: wait for them, lending the worker to
				// a spare meanwhile.
				w.Block(wg.Wait)
			}
			ctx := Named(context.Background(), "bench")
			if c.name == "no-context" {
				ctx = context.Background()
			}
			for range b.N {
				p := New(c.opts...) // a fresh timeline each time
				wg.Add(tasks)
				p.Submit(ctx, root)
				wg.Wait()
				p.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
		})
	}
}

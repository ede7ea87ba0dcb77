package steal

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestGroupContextErrOnlyOnceDone: a group context whose Done channel was
// handed out never reports an error while that channel is still open, also
// when the cancellation comes from above (the submitter's context), which
// reaches the group's ordinary context a moment after its root.
func TestGroupContextErrOnlyOnceDone(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var early atomic.Int64
	for range 1000 {
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan struct{})
		err := p.Submit(ctx, func(w *Worker) {
			g := NewGroup(w)
			gctx := g.Context()
			done := gctx.Done() // makes the ordinary context
			close(ready)
			for i := 1; gctx.Err() == nil; i++ {
				if i%1024 == 0 {
					runtime.Gosched() // with one processor, let the cancel run
				}
			}
			select {
			case <-done:
			default:
				early.Add(1)
			}
			g.Wait()
		})
		if err != nil {
			t.Fatal(err)
		}
		<-ready
		cancel()
	}
	p.Close()
	if n := early.Load(); n > 0 {
		t.Fatalf("%d times Err reported the cancellation while Done was still open", n)
	}
}

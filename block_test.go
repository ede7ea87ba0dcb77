package steal

import (
	"context"
	"testing"
	"time"
)

// TestNestedBlock: a task run by a Block spare Blocks in turn. Both Blocks
// must return and the pool must close, whichever is released first (the
// nested Block once cleared the outer spare's reclaim channel and hung).
func TestNestedBlock(t *testing.T) {
	for _, innerFirst := range []bool{true, false} {
		p := New(WithWorkers(1))
		outerRelease, innerRelease := make(chan struct{}), make(chan struct{})
		innerEntered, outerDone := make(chan struct{}), make(chan struct{})
		p.Submit(context.Background(), func(w *Worker) {
			w.Spawn(func(w *Worker) { // runs on the outer Block's spare
				w.Block(func() { close(innerEntered); <-innerRelease })
			})
			w.Block(func() { <-outerRelease })
			close(outerDone)
		})
		select {
		case <-innerEntered:
		case <-time.After(5 * time.Second):
			t.Fatal("the spare never ran the nested Block")
		}
		if innerFirst {
			close(innerRelease)
			time.Sleep(10 * time.Millisecond)
			close(outerRelease)
		} else {
			close(outerRelease)
			time.Sleep(10 * time.Millisecond)
			close(innerRelease)
		}
		select {
		case <-outerDone:
		case <-time.After(5 * time.Second):
			t.Fatalf("innerFirst=%v: the outer Block never returned: %s", innerFirst, p.SchedTrace(0))
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

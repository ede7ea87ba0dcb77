package steal

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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
		waitClosed(t, innerEntered, "the spare's run of the nested Block")
		if innerFirst {
			close(innerRelease)
			time.Sleep(10 * time.Millisecond)
			close(outerRelease)
		} else {
			close(outerRelease)
			time.Sleep(10 * time.Millisecond)
			close(innerRelease)
		}
		if _, ok := await(outerDone); !ok {
			t.Fatalf("innerFirst=%v: the outer Block never returned: %s", innerFirst, p.SchedTrace(0))
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBlockAddsNoWait: a task spawns a consumer, blocks in Block, then sends
// to the consumer on an unbuffered channel. Without Block this works on two
// workers (the idle one steals the consumer); with Block it must too: Block
// must not wait for whatever the spare is running.
func TestBlockAddsNoWait(t *testing.T) {
	for _, workers := range []int{1, 2} {
		p := New(WithWorkers(workers))
		within(t, fmt.Sprintf("Block then send, %d workers", workers), func() {
			p.Run(func(w *Worker) {
				ch := make(chan int)
				got := make(chan int, 1)
				w.Spawn(func(*Worker) { got <- <-ch })
				w.Block(func() {
					// Let the spare pick up the consumer, as I/O would.
					waitUntil(func() bool { return w.c.runnext.Load() == nil })
					time.Sleep(time.Millisecond)
				})
				ch <- 1
				<-got
			})
		})
		within(t, "Close", func() { p.Close() })
	}
}

// Nested Blocks on one worker share its one spare: the pool keeps
// Workers() workers running, as Block documents. Each level started a
// spare of its own, so a 2-worker pool ran 2, 3 and 4 other tasks at once
// beside a task blocked 1, 2 and 3 levels deep.
func TestNestedBlockStartsOneSpare(t *testing.T) {
	for _, depth := range []int{1, 2, 3} {
		p := New(WithWorkers(2))
		gate, started := make(chan struct{}), make(chan struct{})
		p.Submit(nil, func(w *Worker) {
			var f func(d int)
			f = func(d int) {
				if d == 0 {
					close(started)
					<-gate
					return
				}
				w.Block(func() { f(d - 1) })
			}
			f(depth)
		})
		<-started
		var cur, peak atomic.Int64
		var wg sync.WaitGroup
		for range 40 {
			wg.Add(1)
			p.Go(func() {
				defer wg.Done()
				n := cur.Add(1)
				for {
					if m := peak.Load(); n <= m || peak.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				cur.Add(-1)
			})
		}
		wg.Wait()
		close(gate)
		p.Close()
		if peak.Load() > 2 {
			t.Fatalf("depth %d: %d tasks ran at once beside the blocked one on a 2-worker pool", depth, peak.Load())
		}
	}
}

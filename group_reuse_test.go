package steal

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolGroupReuse: a Pool.Group is used for several rounds; each round
// runs its children and returns its own error, not the previous round's.
func TestPoolGroupReuse(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	boom := errors.New("boom")
	within(t, 10*time.Second, "reused group", func() {
		g.Go(func(*Worker) error { time.Sleep(time.Millisecond); return boom })
		if err := g.Wait(); err != boom {
			t.Errorf("round 1: Wait = %v, want boom", err)
		}
		for round := 2; round < 50; round++ {
			var ran atomic.Int32
			g.Go(func(*Worker) error { ran.Add(1); return nil })
			g.Go(func(*Worker) error { ran.Add(1); return nil })
			if err := g.Wait(); err != nil || ran.Load() != 2 {
				t.Fatalf("round %d: Wait = %v, ran %d of 2", round, err, ran.Load())
			}
		}
	})
}

// TestNewGroupReuse: the same for a group made inside a task.
func TestNewGroupReuse(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	within(t, 10*time.Second, "reused NewGroup", func() {
		p.Run(func(w *Worker) {
			g := NewGroup(w)
			for round := range 50 {
				var ran atomic.Int32
				for range 3 {
					g.Go(func(*Worker) error { ran.Add(1); return nil })
				}
				if err := g.Wait(); err != nil || ran.Load() != 3 {
					t.Errorf("round %d: Wait = %v, ran %d of 3", round, err, ran.Load())
					return
				}
			}
		})
	})
}

// TestPoolGroupGoRacesWait: goroutines call Go and Wait on one Pool.Group at
// the same time, as they may with errgroup. Every child runs exactly once,
// nothing panics, and a final Wait sees them all.
func TestPoolGroupGoRacesWait(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	const adders, each = 4, 500
	var ran atomic.Int64
	within(t, 20*time.Second, "Go racing Wait", func() {
		var wg sync.WaitGroup
		for range adders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					g.Go(func(*Worker) error { ran.Add(1); return nil })
				}
			}()
		}
		stop := make(chan struct{})
		waiterDone := make(chan struct{})
		go func() {
			defer close(waiterDone)
			for {
				select {
				case <-stop:
					return
				default:
					if err := g.Wait(); err != nil {
						t.Errorf("Wait = %v", err)
					}
				}
			}
		}()
		wg.Wait()
		close(stop)
		<-waiterDone
		if err := g.Wait(); err != nil {
			t.Errorf("final Wait = %v", err)
		}
	})
	if got := ran.Load(); got != adders*each {
		t.Fatalf("ran %d children, want %d", got, adders*each)
	}
}

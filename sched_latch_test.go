package steal

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestOutsideWaitsRaceLastChild: goroutines outside the pool wait (a
// Pool.Group's Wait, Future.Wait(nil), Future.Done, WaitContext, Run)
// while the last child finishes on a worker. The outside waiter's channel
// is made on demand (latch.block): every wait must return, with the
// result, however the two interleave.
func TestOutsideWaitsRaceLastChild(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	deadline := time.Now().Add(20 * time.Second)
	var bad atomic.Value
	waiters := newCountdown(4)
	for range 4 {
		go func() {
			defer waiters.dec()
			g := p.Group(context.Background())
			for i := 0; i < 1500 && time.Now().Before(deadline); i++ {
				if err := outsideWaits(p, g, i); err != nil {
					bad.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	waitClosed(t, waiters.done, "outside waiters")
	if e := bad.Load(); e != nil {
		t.Fatal(e)
	}
}

// outsideWaits runs round i of one outside waiter: a round of g with 0-2
// children, then a future waited for in one of four ways.
func outsideWaits(p *Pool, g *Group, i int) error {
	var ran atomic.Int32
	for range i % 3 {
		g.Go(func(*Worker) error { ran.Add(1); return nil })
	}
	if err := g.Wait(); err != nil || int(ran.Load()) != i%3 {
		return fmt.Errorf("Pool.Group: %v, %d of %d children ran", err, ran.Load(), i%3)
	}
	f, err := PoolSpawn(nil, p, func(*Worker) int { return i })
	if err != nil {
		return err
	}
	var v int
	switch i % 4 {
	case 0:
		v, err = f.Wait(nil)
	case 1:
		<-f.Done()
		v, err = f.Wait(nil)
	case 2:
		v, err = f.WaitContext(context.Background())
	case 3:
		if err = p.Run(func(*Worker) { v = i }); err == nil {
			_, err = f.Wait(nil)
		}
	}
	if v != i || err != nil {
		return fmt.Errorf("round %d: %d, %v", i, v, err)
	}
	return nil
}

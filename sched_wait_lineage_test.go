package steal

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Pool.Group's Wait called from a future that one of the group's own
// children spawned and waits for is a cycle: the child waits for the
// future, the future for the group, the group for the child. It used to
// hang; now the task that closes the cycle panics, so the child fails and
// the group's Wait returns the panic.
func TestPoolGroupWaitFromFutureOfItsChildPanics(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		p := New(WithWorkers(workers))
		g := p.Group(context.Background())
		g.Go(func(w *Worker) error {
			f := Spawn(w, func(*Worker) int {
				g.Wait()
				return 0
			})
			_, err := f.Wait(w)
			return err
		})
		var err error
		within(t, "Wait of a group waited for by its child's future", func() { err = g.Wait() })
		var pe *PanicError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "waits for work that waits for it") {
			t.Errorf("%d workers: Wait = %v, want the panic of the wait that closes the cycle", workers, err)
		}
		if err := p.Close(); err != nil {
			t.Errorf("%d workers: Close = %v", workers, err)
		}
	}
}

// A future waited for from its own task is the smallest cycle there is.
func TestFutureWaitFromItsOwnTaskPanics(t *testing.T) {
	p := New(WithWorkers(2))
	var err error
	within(t, "Run", func() {
		err = p.Run(func(w *Worker) {
			var f *Future[int]
			ready := make(chan struct{})
			f = Spawn(w, func(w *Worker) int {
				<-ready
				f.Wait(w)
				return 0
			})
			close(ready)
			_, err := f.Wait(w)
			if err == nil || !strings.Contains(err.Error(), "waits for work that waits for it") {
				t.Errorf("Wait = %v, want the future's panic", err)
			}
		})
	})
	if err != nil {
		t.Errorf("Run = %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// With as many tasks in Worker.Block as the pool once had spares (256), a
// Pool.Group child that waited for a future and came upon the group's
// own waiter, a submitted task, ran it above itself, since no spare could
// take it: the waiter waited for the child beneath it, for good, even
// once every Block had returned. Spares are not capped now, and the child
// runs only what it waits for.
func TestWaitWithSparesExhaustedByBlock(t *testing.T) {
	const blockers = 256 // the cap spares had: all of them taken, none to lend to
	p := New(WithWorkers(1))
	release := make(chan struct{})
	var in sync.WaitGroup
	in.Add(blockers)
	for range blockers {
		if err := p.Submit(context.Background(), func(w *Worker) {
			w.Block(func() { in.Done(); <-release })
		}); err != nil {
			t.Fatal(err)
		}
	}
	within(t, "every task inside Block", in.Wait)

	g := p.Group(context.Background())
	waited := make(chan error, 1)
	g.Go(func(w *Worker) error {
		// The group's waiter is queued first, then the future: the
		// child, waiting for the future, comes upon the waiter first.
		if err := p.Submit(context.Background(), func(*Worker) { waited <- g.Wait() }); err != nil {
			return err
		}
		f, err := PoolSpawn(context.Background(), p, func(*Worker) int { return 1 })
		if err != nil {
			return err
		}
		_, err = f.Wait(w)
		return err
	})
	err, ok := await(waited)
	if !ok {
		close(release)
		t.Fatalf("the group's waiter never returned: %s", p.SchedTrace(0))
	}
	if err != nil {
		t.Errorf("the group's waiter got %v", err)
	}
	close(release)
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// A future that a Pool.Group's child spawns, and does not wait for, may
// wait for the group: with a goroutine per task that finishes, since the
// child does not wait for the future. But a waiting task runs its own
// descendants above itself, so when the child waits for something else
// and pops the future, the future's Wait for the group (which waits for
// the child, beneath it on the same goroutine) could never end: the
// pool hung. Now that wait panics instead, the child goes on, and the
// future's panic reaches Close, since nobody waits for it.
func TestWaitForSpawnersGroupFromAboveIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		child   func(g *Group, w *Worker) error
	}{
		{"one worker, child waits for a future", 1, func(g *Group, w *Worker) error {
			Spawn(w, func(*Worker) int { g.Wait(); return 0 }) // nobody waits for it
			f, err := PoolSpawn(context.Background(), w.Pool(), func(*Worker) int { return 1 })
			if err != nil {
				return err
			}
			_, err = f.Wait(w) // pops the future above first
			return err
		}},
		{"two workers, child waits for a stolen half", 2, func(g *Group, w *Worker) error {
			// The other worker steals the half, the oldest task on the
			// deque, and holds on to it until the future has started
			// here, above the child waiting for that half.
			stolen, started := make(chan struct{}), make(chan struct{})
			Join(w, func(w *Worker) {
				Spawn(w, func(*Worker) int { close(started); g.Wait(); return 0 })
				<-stolen
			}, func(*Worker) {
				close(stolen)
				<-started
			})
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(tc.workers))
			g := p.Group(context.Background())
			g.Go(func(w *Worker) error { return tc.child(g, w) })
			var err error
			within(t, "Wait of the group", func() { err = g.Wait() })
			if err != nil {
				t.Errorf("Wait = %v", err)
			}
			within(t, "Close", func() { err = p.Close() })
			var pe *PanicError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "it would wait forever") {
				t.Errorf("Close = %v, want the panic of the future's wait", err)
			}
		})
	}
}

// The same for a future that waits for the future of the task that
// spawned it, while that task waits for something else.
func TestWaitForSpawnersFutureFromAboveIt(t *testing.T) {
	p := New(WithWorkers(1))
	var err error
	within(t, "Run", func() {
		err = p.Run(func(w *Worker) {
			own := make(chan *Future[int], 1)
			fx := Spawn(w, func(w *Worker) int {
				fx := <-own
				Spawn(w, func(w *Worker) int { fx.Wait(w); return 0 }) // nobody waits for it
				f, err := PoolSpawn(context.Background(), p, func(*Worker) int { return 1 })
				if err != nil {
					panic(err)
				}
				v, _ := f.Wait(w)
				return v
			})
			own <- fx
			if v, err := fx.Wait(w); v != 1 || err != nil {
				t.Errorf("fx.Wait = %v, %v", v, err)
			}
		})
	})
	if err != nil {
		t.Errorf("Run = %v", err)
	}
	within(t, "Close", func() { err = p.Close() })
	if err == nil || !strings.Contains(err.Error(), "it would wait forever") {
		t.Errorf("Close = %v, want the panic of the inner future's wait", err)
	}
}

// A future D runs above the task X that spawned it while X waits for
// something else; D waits for a sibling's future FS whose task S waits for
// X's own future. Through S, D waits for work that X is part of, which the
// package doc says panics instead of hanging, whichever of D and S begins
// to wait first.
func TestWaitThroughSiblingForSpawnersFuturePanics(t *testing.T) {
	p := New(WithWorkers(2))
	var dWaiting atomic.Bool
	var runErr, dErr error
	ok := withinDump(t, 20*time.Second, "Run", func() {
		runErr = p.Run(func(w *Worker) {
			fxc := make(chan *Future[int], 1)
			fsc := make(chan *Future[int], 1)
			fs := Spawn(w, func(w *Worker) int { // S, stolen by the other worker
				for !dWaiting.Load() {
					runtime.Gosched()
				}
				time.Sleep(20 * time.Millisecond) // D now waits
				fx := <-fxc
				fx.Wait(w)
				return 1
			})
			fsc <- fs
			fx := Spawn(w, func(w *Worker) int { // X
				fs := <-fsc
				e := Spawn(w, func(w *Worker) int { return 2 })
				Spawn(w, func(w *Worker) int { // D, popped by X's wait for e
					dWaiting.Store(true)
					_, dErr = fs.Wait(w)
					return 3
				})
				v, _ := e.Wait(w)
				return v
			})
			fxc <- fx
			fx.Wait(w)
		})
	})
	if !ok {
		return
	}
	if runErr != nil {
		t.Errorf("Run = %v", runErr)
	}
	var pe *PanicError
	if !errors.As(dErr, &pe) || !strings.Contains(dErr.Error(), "it would wait forever") {
		t.Errorf("D's Wait = %v, want the panic of S's wait, a cycle", dErr)
	}
	var err error
	withinDump(t, 20*time.Second, "Close", func() { err = p.Close() })
	if err != nil {
		t.Errorf("Close = %v", err)
	}
}

// A NewGroup child D runs above the task X that made the group, while X
// waits for something else, and X never waits for the group. A task W
// that waits for X's future must not take D's sibling S for part of what
// it waits for: X does not wait for S, so S, which waits (through a
// channel, which no rule forbids, since S does not descend from W) for
// what W does once its wait is over, may only run on a goroutine of its
// own. Run above W it would hold W forever.
func TestWaiterDoesNotRunSiblingOfChildRunAboveItsTask(t *testing.T) {
	p := New(WithWorkers(3))
	ch := make(chan struct{})
	var closeCh sync.Once
	release := func() { closeCh.Do(func() { close(ch) }) }
	var eStarted, wStarted, sStarted, dDone atomic.Bool
	dRunning := make(chan struct{})
	fxc := make(chan *Future[int], 1)
	wait := func(b *atomic.Bool) {
		for deadline := time.Now().Add(3 * time.Second); !b.Load() && time.Now().Before(deadline); {
			runtime.Gosched()
		}
	}
	// E holds a worker until D has returned.
	fe, err := PoolSpawn(context.Background(), p, func(*Worker) int {
		eStarted.Store(true)
		wait(&dDone)
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	wait(&eStarted)
	// W holds a second worker until D runs, then waits for X's future,
	// and only then lets S go on.
	fw, err := PoolSpawn(context.Background(), p, func(w *Worker) int {
		wStarted.Store(true)
		fx := <-fxc
		<-dRunning
		fx.Wait(w)
		release()
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	wait(&wStarted)
	fx, err := PoolSpawn(context.Background(), p, func(w *Worker) int { // X
		g := NewGroup(w)
		g.Go(func(w *Worker) error { // S
			sStarted.Store(true)
			w.Block(func() { <-ch })
			return nil
		})
		g.Go(func(*Worker) error { // D, popped by X's wait for E
			close(dRunning)
			wait(&sStarted)
			dDone.Store(true)
			return nil
		})
		fe.Wait(w)
		return 1
	})
	if err != nil {
		t.Fatal(err)
	}
	fxc <- fx
	if !withinDump(t, 10*time.Second, "W's future", func() { fw.Wait(nil) }) {
		release()
	}
	withinDump(t, 10*time.Second, "Close", func() { p.Close() })
}

package steal_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/worksteal/steal"
)

// Examples of the methods of the types the entry points return, one
// each, so that go doc shows every one in use.

func ExampleFuture_Wait() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		f := steal.Spawn(w, func(*steal.Worker) int { return 6 * 7 })
		v, err := f.Wait(w) // from a task: runs other tasks while it waits
		fmt.Println(v, err)
	})
	// Output: 42 <nil>
}

func ExampleFuture_Ready() {
	p := steal.New()
	defer p.Close()
	f, _ := steal.PoolSpawn(context.Background(), p, func(*steal.Worker) string { return "done" })
	<-f.Done()
	fmt.Println(f.Ready()) // Wait would return at once
	v, _ := f.Wait(nil)    // nil worker: from outside the pool
	fmt.Println(v)
	// Output:
	// true
	// done
}

func ExampleGroup_Go() {
	p := steal.New()
	defer p.Close()
	var sum atomic.Int64
	p.Run(func(w *steal.Worker) {
		g := steal.NewGroup(w)
		for i := 1; i <= 4; i++ {
			g.Go(func(*steal.Worker) error { sum.Add(int64(i)); return nil })
		}
		fmt.Println(g.Wait(), sum.Load())
	})
	// Output: <nil> 10
}

func ExampleGroup_Context() {
	p := steal.New()
	defer p.Close()
	g := p.Group(context.Background())
	ctx := g.Context() // children that watch it stop early once one fails
	g.Go(func(*steal.Worker) error { return errors.New("first failure") })
	fmt.Println(g.Wait(), ctx.Err())
	// Output: first failure context canceled
}

func ExampleResultGroup_Go() {
	p := steal.New()
	defer p.Close()
	r := steal.PoolResultGroup[string](context.Background(), p)
	for _, s := range []string{"a", "b", "c"} {
		r.Go(func(*steal.Worker) (string, error) { return s + s, nil })
	}
	vals, err := r.Wait()
	fmt.Println(vals, err) // in the order of the Go calls
	// Output: [aa bb cc] <nil>
}

func ExampleResultGroup_TryGo() {
	p := steal.New()
	defer p.Close()
	r := steal.PoolResultGroup[int](context.Background(), p)
	r.SetLimit(1)
	release := make(chan struct{})
	r.Go(func(*steal.Worker) (int, error) { <-release; return 1, nil })
	fmt.Println(r.TryGo(func(*steal.Worker) (int, error) { return 2, nil })) // the one slot is held
	close(release)
	fmt.Println(r.Wait())
	// Output:
	// false
	// [1] <nil>
}

func ExampleResultGroup_SetLimit() {
	p := steal.New()
	defer p.Close()
	r := steal.PoolResultGroup[int](context.Background(), p)
	r.SetLimit(2)
	var now, most atomic.Int64
	for i := range 6 {
		r.Go(func(*steal.Worker) (int, error) {
			most.Store(max(most.Load(), now.Add(1)))
			defer now.Add(-1)
			return i, nil
		})
	}
	vals, err := r.Wait()
	fmt.Println(vals, err, most.Load() <= 2)
	// Output: [0 1 2 3 4 5] <nil> true
}

func ExampleResultGroup_Skipped() {
	p := steal.New()
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := steal.PoolResultGroup[int](ctx, p)
	r.Go(func(*steal.Worker) (int, error) { return 1, nil }) // its context ended first: skipped
	_, err := r.Wait()
	fmt.Println(r.Skipped(), err != nil)
	// Output: 1 true
}

func ExampleResultGroup_Context() {
	p := steal.New()
	defer p.Close()
	r := steal.PoolResultGroup[int](context.Background(), p)
	ctx := r.Context()
	r.Go(func(*steal.Worker) (int, error) { return 0, errors.New("no") })
	_, err := r.Wait()
	fmt.Println(err, ctx.Err()) // Wait's return cancels it too
	// Output: no context canceled
}

func ExampleResultGroup_Wait() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		r := steal.NewResultGroup[int](w)
		r.Go(func(*steal.Worker) (int, error) { return 1, nil })
		r.Go(func(*steal.Worker) (int, error) { return 0, errors.New("second child failed") })
		// The first error, and a value for every child: the zero value
		// for one that failed, or was skipped once the error cancelled
		// the group.
		vals, err := r.Wait()
		fmt.Println(len(vals), vals[1], err)
	})
	// Output: 2 0 second child failed
}

func ExampleWorker_ID() {
	p := steal.New(steal.WithWorkers(2))
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		fmt.Println(w.ID() < p.Workers()) // a pool worker's; a spare's would be Workers() or more
	})
	// Output: true
}

func ExampleWorker_Pool() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		fmt.Println(w.Pool() == p)
	})
	// Output: true
}

func ExamplePool_Workers() {
	p := steal.New(steal.WithWorkers(3))
	defer p.Close()
	fmt.Println(p.Workers())
	// Output: 3
}

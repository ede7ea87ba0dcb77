package steal_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/worksteal/steal"
)

func ExampleNew() {
	p := steal.New(steal.WithWorkers(4))
	defer p.Close()
	fmt.Println("workers:", p.Workers())
	// Output: workers: 4
}

func ExamplePool_Submit() {
	p := steal.New()
	var sum atomic.Int64
	for i := 1; i <= 100; i++ {
		if err := p.Submit(context.Background(), func(w *steal.Worker) { sum.Add(int64(i)) }); err != nil {
			fmt.Println(err)
		}
	}
	p.Close() // runs everything submitted
	fmt.Println("sum:", sum.Load())
	// Output: sum: 5050
}

func ExamplePool_SubmitBatch() {
	p := steal.New()
	var sum atomic.Int64
	fns := make([]func(*steal.Worker), 1000)
	for i := range fns {
		fns[i] = func(w *steal.Worker) { sum.Add(int64(i + 1)) }
	}
	n, err := p.SubmitBatch(context.Background(), fns)
	p.Close() // runs everything submitted
	fmt.Println("queued:", n, "error:", err, "sum:", sum.Load())
	// Output: queued: 1000 error: <nil> sum: 500500
}

func ExamplePool_TrySubmit() {
	p := steal.New(steal.WithWorkers(1), steal.WithMaxQueued(1))
	gate, started := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-gate }) // holds the only worker
	<-started
	fmt.Println(p.TrySubmit(func(*steal.Worker) {})) // fills the backlog
	fmt.Println(p.TrySubmit(func(*steal.Worker) {}))
	close(gate)
	p.Close()
	// Output:
	// <nil>
	// steal: backlog full
}

func ExamplePool_Go() {
	p := steal.New()
	done := make(chan string)
	p.Go(func() { done <- "hello from the pool" })
	fmt.Println(<-done)
	p.Close()
	// Output: hello from the pool
}

func ExampleWorker_Spawn() {
	p := steal.New()
	var leaves atomic.Int64
	var tree func(depth int) func(*steal.Worker)
	tree = func(depth int) func(*steal.Worker) {
		return func(w *steal.Worker) {
			if depth == 0 {
				leaves.Add(1)
				return
			}
			w.Spawn(tree(depth - 1)) // runs next on this worker, unless stolen
			w.Spawn(tree(depth - 1))
		}
	}
	p.Submit(context.Background(), tree(10))
	p.Close() // also runs what running tasks spawn
	fmt.Println("leaves:", leaves.Load())
	// Output: leaves: 1024
}

func ExamplePool_Close() {
	p := steal.New()
	p.Go(func() { panic("oops") })
	err := p.Close()
	var pe *steal.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value)
	fmt.Println(p.Go(func() {}))
	// Output:
	// true oops
	// steal: pool is closed
}

func ExamplePool_Shutdown() {
	p := steal.New(steal.WithWorkers(1))
	p.Submit(context.Background(), func(w *steal.Worker) {
		<-w.Context().Done() // Shutdown cancels it when it gives up waiting
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	fmt.Println(p.Shutdown(ctx))
	fmt.Println(p.Close()) // the task saw the cancellation and returned
	// Output:
	// context deadline exceeded
	// <nil>
}

func ExamplePool_Stats() {
	p := steal.New(steal.WithWorkers(2))
	p.Submit(context.Background(), func(w *steal.Worker) {
		for range 1000 {
			w.Spawn(func(*steal.Worker) {})
		}
	})
	p.Close()
	s := p.Stats() // exact once the pool is closed
	fmt.Println("ran:", s.Total.Ran, "spawned:", s.Total.Spawned)
	fmt.Println("stolen in == out:", s.Total.StolenIn == s.Total.StolenOut)
	// Output:
	// ran: 1001 spawned: 1000
	// stolen in == out: true
}

func ExampleWithMaxQueued() {
	p := steal.New(steal.WithWorkers(2), steal.WithMaxQueued(8))
	var ran atomic.Int64
	for range 100 {
		// Blocks while 8 submitted tasks wait to start; never drops one.
		p.Submit(context.Background(), func(*steal.Worker) { ran.Add(1) })
	}
	p.Close()
	fmt.Println("ran:", ran.Load())
	// Output: ran: 100
}

func ExampleWithPanicHandler() {
	handled := make(chan *steal.PanicError, 1)
	p := steal.New(steal.WithPanicHandler(func(e *steal.PanicError) { handled <- e }))
	p.Go(func() { panic("bad input") })
	e := <-handled
	fmt.Println("handled:", e.Value)
	fmt.Println("Close:", p.Close())
	// Output:
	// handled: bad input
	// Close: <nil>
}

package steal_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/worksteal/steal"
)

func fib(w *steal.Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	steal.Join(w, func(w *steal.Worker) { a = fib(w, n-1) }, func(w *steal.Worker) { b = fib(w, n-2) })
	return a + b
}

func ExampleJoin() {
	p := steal.New()
	defer p.Close()
	var n int
	p.Run(func(w *steal.Worker) { n = fib(w, 20) })
	fmt.Println(n)
	// Output: 6765
}

func ExampleNewGroup() {
	p := steal.New(steal.WithWorkers(1)) // even one worker cannot deadlock
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		g := steal.NewGroup(w)
		results := make([]int, 3)
		for i := range results {
			g.Go(func(w *steal.Worker) error {
				inner := steal.NewGroup(w) // a child waits on its own children
				inner.Go(func(*steal.Worker) error { results[i] = i * i; return nil })
				return inner.Wait()
			})
		}
		fmt.Println(g.Wait(), results)
	})
	// Output: <nil> [0 1 4]
}

func ExampleGroup_Wait() {
	p := steal.New()
	defer p.Close()
	g := p.Group(context.Background())
	g.Go(func(*steal.Worker) error { return errors.New("disk full") })
	g.Go(func(*steal.Worker) error { return nil })
	fmt.Println(g.Wait())
	// Output: disk full
}

func ExampleSpawn() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		f := steal.Spawn(w, func(w *steal.Worker) string { return "computed elsewhere" })
		v, err := f.Wait(w) // helps run tasks until f is done
		fmt.Println(v, err)
	})
	// Output: computed elsewhere <nil>
}

func ExampleFor() {
	p := steal.New()
	defer p.Close()
	squares := make([]int, 8)
	p.Run(func(w *steal.Worker) {
		steal.For(w, 0, len(squares), func(w *steal.Worker, i int) { squares[i] = i * i })
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

func ExampleForRange() {
	p := steal.New()
	defer p.Close()
	data := make([]int, 1000)
	p.ForRange(0, len(data), func(w *steal.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			data[i] = 1
		}
	})
	sum := 0
	for _, v := range data {
		sum += v
	}
	fmt.Println(sum)
	// Output: 1000
}

func ExampleWorker_Block() {
	p := steal.New(steal.WithWorkers(1))
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		ready := make(chan string)
		w.Spawn(func(*steal.Worker) { ready <- "sent by a task the spare ran" })
		w.Block(func() { fmt.Println(<-ready) }) // a spare keeps the pool running
	})
	// Output: sent by a task the spare ran
}

func ExamplePool_Run() {
	p := steal.New()
	defer p.Close()
	err := p.Run(func(w *steal.Worker) { fmt.Println("running on worker", w.ID() >= 0) })
	fmt.Println(err)
	// Output:
	// running on worker true
	// <nil>
}

func ExamplePool_Join() {
	p := steal.New()
	defer p.Close()
	var left, right string
	p.Join(func(*steal.Worker) { left = "left" }, func(*steal.Worker) { right = "right" })
	fmt.Println(left, right)
	// Output: left right
}

func ExamplePool_For() {
	p := steal.New()
	defer p.Close()
	out := make([]string, 3)
	p.For(0, 3, func(w *steal.Worker, i int) { out[i] = fmt.Sprint("item", i) })
	fmt.Println(out)
	// Output: [item0 item1 item2]
}

func ExampleDefault() {
	var n int
	steal.Default().Run(func(w *steal.Worker) { n = fib(w, 10) })
	fmt.Println(n)
	// Output: 55
}

func fibFork(w *steal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := steal.Fork2(w, fibFork, n-1, n-2) // no closure, no allocation
	return a + b
}

func ExampleFork2() {
	p := steal.New()
	defer p.Close()
	var n int
	p.Run(func(w *steal.Worker) { n = fibFork(w, 25) })
	fmt.Println(n)
	// Output: 75025
}

package steal_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/worksteal/steal"
)

func ExampleMap() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		lengths := steal.Map(w, []string{"a", "bb", "ccc"}, func(_ *steal.Worker, s string) int {
			return len(s)
		})
		fmt.Println(lengths) // in input order, whoever computed what
	})
	// Output: [1 2 3]
}

func ExampleMapErr() {
	p := steal.New(steal.WithWorkers(1)) // one worker: the calls go in order
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		in := []string{"1", "2", "x", "4", "5"}
		nums, err := steal.MapErr(w, in, func(_ *steal.Worker, s string) (int, error) {
			return strconv.Atoi(s)
		})
		fmt.Println(nums)
		fmt.Println(err)
		var me *steal.MapError
		fmt.Println(errors.As(err, &me), me.Index, errors.Is(err, steal.ErrSkipped))
	})
	// Output:
	// [1 2 0 0 0]
	// steal: element 2: strconv.Atoi: parsing "x": invalid syntax (2 calls not made)
	// true 2 true
}

func ExampleMapSeq() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		words := strings.FieldsSeq("the quick brown fox")
		upper := steal.MapSeq(w, words, func(_ *steal.Worker, s string) string {
			return strings.ToUpper(s)
		})
		fmt.Println(upper)
	})
	// Output: [THE QUICK BROWN FOX]
}

func ExampleMapSeqErr() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		lines := strings.Lines("3\n4\n5\n")
		squares, err := steal.MapSeqErr(w, lines, func(_ *steal.Worker, line string) (int, error) {
			n, err := strconv.Atoi(strings.TrimSpace(line))
			return n * n, err
		})
		fmt.Println(squares, err)
	})
	// Output: [9 16 25] <nil>
}

func ExamplePoolMap() {
	p := steal.New()
	defer p.Close()
	// From outside the pool; a function, not a method, because of the type parameters.
	out, err := steal.PoolMap(context.Background(), p, []int{1, 2, 3}, func(_ *steal.Worker, x int) int {
		return 10 * x
	})
	fmt.Println(out, err)
	// Output: [10 20 30] <nil>
}

func ExamplePoolMapErr() {
	p := steal.New()
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // already done: nothing runs, and the error says so
	_, err := steal.PoolMapErr(ctx, p, []int{1, 2, 3}, func(_ *steal.Worker, x int) (int, error) {
		return x, nil
	})
	fmt.Println(err, errors.Is(err, context.Canceled))
	// Output: steal: 1 task not run: context canceled true
}

func ExamplePoolMapSeq() {
	p := steal.New()
	defer p.Close()
	out, err := steal.PoolMapSeq(context.Background(), p, slices.Values([]int{1, 2, 3}),
		func(_ *steal.Worker, x int) string { return strings.Repeat("*", x) })
	fmt.Println(out, err)
	// Output: [* ** ***] <nil>
}

func ExamplePoolMapSeqErr() {
	p := steal.New(steal.WithWorkers(1))
	defer p.Close()
	var read atomic.Int64
	numbers := func(yield func(int) bool) { // an endless sequence
		for i := 0; ; i++ {
			read.Add(1)
			if !yield(i) {
				return
			}
		}
	}
	_, err := steal.PoolMapSeqErr(context.Background(), p, numbers, func(_ *steal.Worker, x int) (int, error) {
		if x == 100 {
			return 0, errors.New("enough")
		}
		return x, nil
	})
	var me *steal.MapError
	fmt.Println(errors.As(err, &me), me.Index, me.Err)
	fmt.Println("stopped reading:", read.Load() < 1000)
	// Output:
	// true 100 enough
	// stopped reading: true
}

func ExampleNewResultGroup() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		r := steal.NewResultGroup[string](w)
		for _, ms := range []int{3, 1, 2} {
			r.Go(func(*steal.Worker) (string, error) {
				time.Sleep(time.Duration(ms) * time.Millisecond) // finish in another order
				return fmt.Sprint(ms, "ms"), nil
			})
		}
		vals, err := r.Wait()
		fmt.Println(vals, err) // in the order of the Go calls
	})
	// Output: [3ms 1ms 2ms] <nil>
}

func ExamplePoolResultGroup() {
	p := steal.New()
	defer p.Close()
	r := steal.PoolResultGroup[int](context.Background(), p)
	r.SetLimit(2) // at most two children unfinished at once
	for i := range 5 {
		r.Go(func(*steal.Worker) (int, error) { return i * i, nil })
	}
	fmt.Println(r.Wait())
	// Output: [0 1 4 9 16] <nil>
}

func ExampleGroup_SetLimit() {
	p := steal.New(steal.WithWorkers(1))
	defer p.Close()
	var now, most atomic.Int64
	p.Run(func(w *steal.Worker) {
		g := steal.NewGroup(w)
		g.SetLimit(1) // Go at the limit runs queued children: no deadlock on one worker
		for range 10 {
			g.Go(func(*steal.Worker) error {
				most.Store(max(most.Load(), now.Add(1)))
				now.Add(-1)
				return nil
			})
		}
		fmt.Println(g.Wait(), "at most", most.Load(), "at once")
	})
	// Output: <nil> at most 1 at once
}

func ExampleGroup_TryGo() {
	p := steal.New()
	defer p.Close()
	g := p.Group(context.Background())
	g.SetLimit(1)
	gate := make(chan struct{})
	fmt.Println(g.TryGo(func(*steal.Worker) error { <-gate; return nil }))
	fmt.Println(g.TryGo(func(*steal.Worker) error { return nil })) // the slot is taken
	close(gate)
	fmt.Println(g.Wait())
	// Output:
	// true
	// false
	// <nil>
}

func ExampleFuture_Done() {
	p := steal.New()
	defer p.Close()
	f, err := steal.PoolSpawn(context.Background(), p, func(*steal.Worker) string { return "ready" })
	if err != nil {
		fmt.Println(err)
		return
	}
	select { // outside the pool, a future is one more channel to select on
	case <-f.Done():
		v, err := f.Wait(nil) // returns at once
		fmt.Println(v, err)
	case <-time.After(time.Minute):
		fmt.Println("too slow")
	}
	// Output: ready <nil>
}

func ExampleFuture_WaitContext() {
	p := steal.New()
	defer p.Close()
	gate := make(chan struct{})
	f, _ := steal.PoolSpawn(context.Background(), p, func(*steal.Worker) int { <-gate; return 42 })
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	fmt.Println(f.WaitContext(ctx)) // gives up; the task goes on
	close(gate)
	fmt.Println(f.WaitContext(context.Background()))
	// Output:
	// 0 context deadline exceeded
	// 42 <nil>
}

func ExamplePoolSpawn() {
	p := steal.New()
	f, err := steal.PoolSpawn(context.Background(), p, func(w *steal.Worker) int {
		return len(steal.Map(w, []int{1, 2, 3}, func(_ *steal.Worker, x int) int { return x }))
	})
	fmt.Println(err)
	fmt.Println(f.Wait(nil))
	p.Close()
	_, err = steal.PoolSpawn(context.Background(), p, func(*steal.Worker) int { return 0 })
	fmt.Println(err)
	// Output:
	// <nil>
	// 3 <nil>
	// steal: pool is closed
}

// quicksort sorts s in place; Join2 needs no result type.
func quicksort(w *steal.Worker, s []int) {
	if len(s) < 2 {
		return
	}
	pivot, i := s[len(s)-1], 0
	for j := range len(s) - 1 {
		if s[j] < pivot {
			s[i], s[j] = s[j], s[i]
			i++
		}
	}
	s[i], s[len(s)-1] = s[len(s)-1], s[i]
	steal.Join2(w, quicksort, s[:i], s[i+1:])
}

func ExampleJoin2() {
	p := steal.New()
	defer p.Close()
	s := []int{5, 2, 8, 1, 9, 3}
	p.Run(func(w *steal.Worker) { quicksort(w, s) })
	fmt.Println(s)
	// Output: [1 2 3 5 8 9]
}

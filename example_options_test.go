package steal_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/worksteal/steal"
)

func ExampleWithWorkers() {
	p := steal.New(steal.WithWorkers(3))
	defer p.Close()
	fmt.Println(p.Workers())
	// Output: 3
}

func ExampleWithSchedTrace() {
	r, out := io.Pipe()
	p := steal.New(steal.WithWorkers(2), steal.WithSchedTrace(time.Millisecond, out))
	line, _ := bufio.NewReader(r).ReadString('\n') // the first line, a millisecond or so from now
	r.Close()                                      // later lines fail to write rather than wait for a reader
	p.Close()
	first := strings.TrimSuffix(line, "\n")
	// The numbers vary from run to run; the shape does not.
	fmt.Println(regexp.MustCompile(`\d+`).ReplaceAllString(first, "N"))
	// Output: SCHED Nms: workers=N idle=N spinning=N inject=N local=[N N] runnext=[N N] ran=N steals=N stolen=N overflows=N parks=N
}

func ExampleWithStallDetector() {
	stalls := make(chan steal.Stall, 1)
	p := steal.New(steal.WithWorkers(1), steal.WithStallDetector(10*time.Millisecond,
		func(s steal.Stall) { stalls <- s }))
	var s steal.Stall
	p.Run(func(w *steal.Worker) {
		w.Spawn(func(*steal.Worker) {}) // waits behind the stuck task
		s = <-stalls                    // blocks (without Worker.Block) until the detector reports it
	})
	p.Close()
	fmt.Println("worker", s.Worker, "queued", s.Queued, "long enough:", s.Running >= 10*time.Millisecond)
	// Output: worker 0 queued 1 long enough: true
}

func ExampleWithTimeline() {
	p := steal.New(steal.WithWorkers(2), steal.WithTimeline(1000))
	p.Run(func(w *steal.Worker) {
		for range 10 {
			w.Spawn(func(*steal.Worker) {})
		}
	})
	p.Close()
	var trace bytes.Buffer
	if err := p.WriteTrace(&trace); err != nil { // after Close
		fmt.Println(err)
	}
	fmt.Println(strings.Count(trace.String(), `"name":"task","ph":"B"`), "task slices")
	// Output: 11 task slices
}

func ExamplePool_WriteTrace() {
	p := steal.New(steal.WithTimeline(100))
	fmt.Println(p.WriteTrace(new(bytes.Buffer))) // still running
	p.Close()
	fmt.Println(p.WriteTrace(new(bytes.Buffer)))
	// Output:
	// steal: pool is still running
	// <nil>
}

func ExamplePool_SchedTrace() {
	p := steal.New(steal.WithWorkers(2))
	p.Close()
	line := p.SchedTrace(1500 * time.Millisecond)
	// Whether a worker parked before Close varies: blank that count out.
	fmt.Println(regexp.MustCompile(`parks=\d+`).ReplaceAllString(line, "parks=N"))
	// Output: SCHED 1500ms: workers=2 idle=2 spinning=0 inject=0 local=[0 0] runnext=[0 0] ran=0 steals=0 stolen=0 overflows=0 parks=N
}

func ExamplePool_Group() {
	p := steal.New()
	defer p.Close()
	g := p.Group(context.Background()) // from outside the pool: Wait blocks
	results := make([]int, 4)
	for i := range results {
		g.Go(func(w *steal.Worker) error {
			results[i] = fib(w, 10+i)
			return nil
		})
	}
	fmt.Println(g.Wait(), results)
	// Output: <nil> [55 89 144 233]
}

func ExamplePool_ForRange() {
	p := steal.New()
	defer p.Close()
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	lengths := make([]int, len(words))
	p.ForRange(0, len(words), func(w *steal.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			lengths[i] = len(words[i])
		}
	})
	fmt.Println(lengths)
	// Output: [3 5 5 3 5 4 3 4 3]
}

func ExampleGroup_Skipped() {
	p := steal.New(steal.WithWorkers(1))
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		g := steal.NewGroup(w)
		for range 3 {
			g.Go(func(*steal.Worker) error { return nil }) // queued, not started
		}
		g.Go(func(*steal.Worker) error { return fmt.Errorf("stop") }) // runs first: LIFO
		fmt.Println(g.Wait(), g.Skipped())
	})
	// Output: stop 3
}

func ExampleWorker_Context() {
	p := steal.New()
	defer p.Close()
	p.Run(func(w *steal.Worker) {
		g := steal.NewGroup(w)
		g.Go(func(w *steal.Worker) error { return fmt.Errorf("first child failed") })
		g.Go(func(w *steal.Worker) error {
			// A group child sees its group's context. It waits for it
			// inside Block, so that a spare worker runs the sibling that
			// cancels it, even on a pool of one worker.
			w.Block(func() { <-w.Context().Done() })
			return nil
		})
		fmt.Println(g.Wait())
	})
	// Output: first child failed
}

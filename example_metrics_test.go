package steal_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"time"

	"github.com/worksteal/steal"
)

func ExampleWithQueueWaitSampling() {
	p := steal.New(steal.WithWorkers(1), steal.WithQueueWaitSampling(1)) // time every task
	for range 100 {
		p.Go(func() {})
	}
	p.Close()
	wait := p.Stats().QueueWait
	fmt.Println(wait.Every, wait.Count, wait.Quantile(0.99) <= wait.Bounds[len(wait.Bounds)-1])
	// Output: 1 100 true
}

func ExampleWaitHistogram_Quantile() {
	h := steal.WaitHistogram{
		Bounds: []time.Duration{time.Millisecond, 2 * time.Millisecond},
		Counts: []uint64{5, 5, 0},
		Count:  10,
	}
	fmt.Println(h.Quantile(0.5), h.Quantile(0.75))
	// Output: 1ms 1.5ms
}

func ExamplePool_Expvar() {
	p := steal.New()
	if expvar.Get("steal") == nil { // Publish panics on a name taken
		expvar.Publish("steal", p.Expvar()) // served on /debug/vars
	}
	for range 10 {
		p.Go(func() {})
	}
	p.Close()
	var m struct{ Submitted, Completed, Backlog int }
	json.Unmarshal([]byte(p.Expvar().String()), &m)
	fmt.Printf("%+v\n", m)
	// Output: {Submitted:10 Completed:10 Backlog:0}
}

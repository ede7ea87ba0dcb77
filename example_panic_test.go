package steal_test

import (
	"errors"
	"fmt"

	"github.com/worksteal/steal"
)

func ExamplePool_SetPanicHandler() {
	p := steal.New(steal.WithWorkers(1))
	handled := make(chan *steal.PanicError, 1)
	p.SetPanicHandler(func(e *steal.PanicError) { handled <- e })
	p.Go(func() { panic("bad input") })
	fmt.Println("handled:", <-handled) // one line; %+v would add the stack

	p.SetPanicHandler(nil) // back to keeping panics for Close
	p.Go(func() { panic("again") })
	fmt.Println("Close:", p.Close())
	// Output:
	// handled: steal: task panicked on worker 0: bad input
	// Close: steal: task panicked on worker 0: again
}

func ExampleWithPanicLimit() {
	p := steal.New(steal.WithWorkers(1), steal.WithPanicLimit(2))
	for i := range 5 {
		p.Go(func() { panic(i) })
	}
	err := p.Close() // the first two panics, then how many more there were
	fmt.Println(err)
	var dropped *steal.DroppedPanicsError
	if errors.As(err, &dropped) {
		fmt.Println("not kept:", dropped.Count)
	}
	s := p.Stats()
	fmt.Println("panics:", s.Total.Panics, "kept:", s.PanicsKept, "dropped:", s.PanicsDropped)
	// Output:
	// steal: task panicked on worker 0: 0
	// steal: task panicked on worker 0: 1
	// steal: 3 more task panics were not kept (limit 2)
	// not kept: 3
	// panics: 5 kept: 2 dropped: 3
}

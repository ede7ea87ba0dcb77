package steal_test

import (
	"fmt"

	"github.com/worksteal/steal"
)

func ExampleTryPoolSpawn() {
	p := steal.New(steal.WithWorkers(1), steal.WithMaxQueued(1))
	gate, started := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-gate }) // holds the only worker
	<-started
	f, err := steal.TryPoolSpawn(p, func(*steal.Worker) int { return 6 * 7 }) // fills the backlog
	fmt.Println(err)
	_, err = steal.TryPoolSpawn(p, func(*steal.Worker) int { return 0 })
	fmt.Println(err)
	close(gate)
	v, err := f.Wait(nil)
	fmt.Println(v, err)
	p.Close()
	// Output:
	// <nil>
	// steal: backlog full
	// 42 <nil>
}

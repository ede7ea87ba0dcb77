package coord_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/worksteal/steal/coord"
)

// Examples of the methods not shown elsewhere, one each.

func ExampleCluster_Inject() {
	c, _ := coord.New([]string{"w1"}, coord.Options{})
	c.Push("w1", coord.Job{ID: "mine"})                    // the owner's end: runs next
	c.Inject("w1", coord.Job{ID: "x"}, coord.Job{ID: "y"}) // the back: where thieves take from
	fmt.Println(c.Snapshot()[0].Queue)
	// Output: [{mine  0s} {x  0s} {y  0s}]
}

func ExampleCluster_Worker() {
	c := coord.NewExample()
	w, _ := c.Worker("w2")
	_, err := c.Worker("w9")
	fmt.Println(w.Name, w.QueueSize, w.Idle())
	fmt.Println(err)
	// Output:
	// w2 3 false
	// unknown worker: w9
}

func ExampleCluster_Workers() {
	c := coord.NewExample()
	c.Pop("w1")
	for _, w := range c.Workers() { // in the order the workers were named
		fmt.Println(w.Name, w.QueueSize, w.InFlight)
	}
	// Output:
	// w1 2 1
	// w2 3 0
	// w3 0 0
}

func ExampleCluster_Live() {
	c := coord.NewExample()
	t, _ := c.Pop("w1")
	fmt.Println(c.Len(), "workers,", c.Live(), "live jobs") // queued and in flight
	c.Complete("w1", t.Job.ID)
	fmt.Println(c.Live(), "live jobs")
	// Output:
	// 3 workers, 6 live jobs
	// 5 live jobs
}

func ExampleCluster_Len() {
	c, _ := coord.New([]string{"a", "b"}, coord.Options{})
	fmt.Println(c.Len())
	// Output: 2
}

func ExampleCluster_PayloadBytes() {
	c, _ := coord.New([]string{"w1"}, coord.Options{})
	c.Push("w1", coord.Job{ID: "a", Payload: `{"n":7}`})
	fmt.Println(c.PayloadBytes())
	// Output: 7
}

func ExampleCluster_Check() {
	c := coord.NewExample()
	c.Steal("w3", []string{"w1"})
	fmt.Println(c.Check()) // every live job in exactly one place
	// Output: <nil>
}

func ExampleCluster_ReplaceQueues() {
	c := coord.NewExample()
	// As a simulation might leave it: job0 and job3 ran (they are absent,
	// so retired), job5 moved to w3.
	err := c.ReplaceQueues([][]coord.Job{
		{{ID: "job1"}, {ID: "job2"}},
		{{ID: "job4"}},
		{{ID: "job5"}},
	})
	fmt.Println(err, c.Live(), c.Workers())
	// Output: <nil> 4 [{w1 2 0} {w2 1 0} {w3 1 0}]
}

func ExampleCluster_Victims() {
	c, _ := coord.New([]string{"a"}, coord.Options{Victims: coord.Random})
	fmt.Println(c.Victims())
	// Output: random
}

func ExampleVictimPolicy_Pick() {
	sizes := []int{2, 5, 5} // queue lengths of the busy candidates
	fmt.Println(coord.MostLoaded.Pick(sizes, nil))
	fmt.Println(coord.Random.Pick(sizes, rand.New(rand.NewPCG(1, 2))) < 3)
	// Output:
	// 1
	// true
}

func ExampleWorkerState_Idle() {
	c := coord.NewExample()
	c.Pop("w3") // w3's deque is empty: it steals, and the job is in flight there
	w, _ := c.Worker("w3")
	fmt.Println(w.QueueSize, w.InFlight, w.Idle()) // not idle while a job is in flight
	// Output: 0 1 false
}

func ExampleTaken_Stolen() {
	c := coord.NewExample()
	t, _ := c.Pop("w3")
	fmt.Println(t.Job.ID, t.Stolen(), t.Victim)
	// Output: job2 true w1
}

func ExampleDeque_At() {
	var d coord.Deque[string]
	d.PushBack("b")
	d.PushFront("a")
	d.PushBack("c")
	for i := range d.Len() {
		fmt.Print(d.At(i)) // front to back
	}
	fmt.Println()
	v, ok := d.PopBack()
	fmt.Println(v, ok)
	// Output:
	// abc
	// c true
}

package coord_test

import (
	"fmt"

	"github.com/worksteal/steal/coord"
)

// The work-stealing cluster exercise's scenario: the idle worker w3 steals from the back of the most
// loaded busy worker, then the workers drain the cluster until it is idle.
func Example() {
	c := coord.NewExample() // w1: job0 job1 job2, w2: job3 job4 job5, w3 idle
	theft, _ := c.Steal("w3", []string{"w1", "w2"})
	fmt.Println(theft.Thief, "stole", theft.Job.ID, "from", theft.Victim, "leaving", theft.VictimQueueSize)

	for !c.AllIdle() {
		for _, w := range []string{"w1", "w2", "w3"} {
			if t, err := c.Pop(w); err == nil {
				c.Complete(w, t.Job.ID)
			}
		}
	}
	fmt.Println("all idle:", c.AllIdle(), "check:", c.Check())
	// Output:
	// w3 stole job2 from w1 leaving 2
	// all idle: true check: <nil>
}

func ExampleCluster_Pop() {
	c, _ := coord.New([]string{"owner", "thief"}, coord.Options{})
	c.Inject("owner", coord.Job{ID: "a"}, coord.Job{ID: "b"})
	own, _ := c.Pop("owner")
	stolen, _ := c.Pop("thief")
	fmt.Println(own.Job.ID, own.Stolen())
	fmt.Println(stolen.Job.ID, stolen.Stolen(), stolen.Victim)
	// Output:
	// a false
	// b true owner
}

func ExampleDistribution_Place() {
	for _, d := range []coord.Distribution{coord.First, coord.Blocks, coord.RoundRobin, coord.Skewed} {
		perWorker := make([]int, 3)
		d.Place(8, 3, func(job, worker int) { perWorker[worker]++ })
		fmt.Println(d, perWorker)
	}
	// Output:
	// first [8 0 0]
	// blocks [2 3 3]
	// round_robin [3 3 2]
	// skewed [4 2 2]
}

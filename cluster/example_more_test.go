package cluster_test

import (
	"errors"
	"fmt"

	"github.com/worksteal/steal/cluster"
)

func ExampleNew() {
	c, err := cluster.New([]string{"a", "b", "c"}, cluster.Options{Victims: cluster.BestOfTwo, Seed: 42})
	fmt.Println(c.Len(), c.Victims(), err)

	// Names must be distinct; the error names the offender.
	_, err = cluster.New([]string{"a", "b", "a"}, cluster.Options{})
	fmt.Println(err, errors.Is(err, cluster.ErrDuplicateWorker))
	// Output:
	// 3 best_of_two <nil>
	// duplicate worker: a true
}

func ExampleNewExample() {
	c := cluster.NewExample()
	for _, w := range c.Workers() {
		fmt.Println(w.Name, w.QueueSize, w.Idle())
	}
	// Output:
	// w1 3 false
	// w2 3 false
	// w3 0 true
}

// Under the default MostLoaded policy the longest deque is robbed, ties going
// to the candidate listed first, so the order of candidates matters.
func ExampleCluster_Steal() {
	c := cluster.NewExample() // w1: job0 job1 job2, w2: job3 job4 job5
	t, _ := c.Steal("w3", []string{"w2", "w1"})
	fmt.Println(t.Victim, t.Job.ID, t.VictimQueueSize, t.ThiefQueueSize)

	// nil means every other worker; w1 now has the longest deque.
	t, _ = c.Steal("w3", nil)
	fmt.Println(t.Victim, t.Job.ID, t.VictimQueueSize, t.ThiefQueueSize)
	// Output:
	// w2 job5 2 1
	// w1 job2 2 2
}

// A failed steal returns a *cluster.Error and changes nothing. Match its kind
// with errors.Is against a sentinel, or get at the details with errors.As.
func ExampleCluster_Steal_nothingToSteal() {
	c, _ := cluster.New([]string{"w1", "w2"}, cluster.Options{})
	_, err := c.Steal("w2", nil)
	fmt.Println(errors.Is(err, cluster.ErrNothingToSteal))

	var e *cluster.Error
	if errors.As(err, &e) {
		fmt.Printf("kind=%q detail=%q\n", e.Kind, e.Detail)
	}
	// Output:
	// true
	// kind="nothing to steal" detail="no candidate of w2 has a queued job"
}

// Push is the owner's end: the job pushed last runs first.
func ExampleCluster_Push() {
	c, _ := cluster.New([]string{"w1"}, cluster.Options{})
	c.Push("w1", cluster.Job{ID: "a"})
	c.Push("w1", cluster.Job{ID: "b"})
	err := c.Push("w1", cluster.Job{ID: "a"}) // "a" is still live
	t, _ := c.Pop("w1")
	fmt.Println(t.Job.ID, t.QueueSize)
	fmt.Println(err)
	// Output:
	// b 1
	// duplicate job: a
}

func ExampleCluster_Complete() {
	c, _ := cluster.New([]string{"w1", "w2"}, cluster.Options{})
	c.Push("w1", cluster.Job{ID: "a"})
	t, _ := c.Pop("w1") // "a" is now in flight at w1
	fmt.Println(c.Complete("w2", t.Job.ID))
	fmt.Println(c.Complete("w1", t.Job.ID), c.Live())
	// Output:
	// unknown job: a is not in flight at w2
	// <nil> 0
}

func ExampleCluster_Snapshot() {
	c := cluster.NewExample()
	c.Pop("w3") // steals job2 from w1; it is in flight at w3
	for _, s := range c.Snapshot() {
		fmt.Print(s.Name, " queued:")
		for _, j := range s.Queue {
			fmt.Print(" ", j.ID)
		}
		fmt.Print(" in flight:")
		for _, j := range s.InFlight {
			fmt.Print(" ", j.ID)
		}
		fmt.Println()
	}
	// Output:
	// w1 queued: job0 job1 in flight:
	// w2 queued: job3 job4 job5 in flight:
	// w3 queued: in flight: job2
}

// A worker holding a job in flight is not idle, even with an empty deque.
func ExampleCluster_AllIdle() {
	c, _ := cluster.New([]string{"w1", "w2"}, cluster.Options{})
	fmt.Println(c.AllIdle())
	c.Push("w1", cluster.Job{ID: "a"})
	c.Pop("w1")
	fmt.Println(c.AllIdle())
	c.Complete("w1", "a")
	fmt.Println(c.AllIdle())
	// Output:
	// true
	// false
	// true
}

func ExampleCluster_Distribute() {
	c, _ := cluster.New([]string{"w1", "w2", "w3"}, cluster.Options{})
	jobs := make([]cluster.Job, 7)
	for k := range jobs {
		jobs[k] = cluster.Job{ID: fmt.Sprintf("job%d", k)}
	}
	c.Distribute(jobs, cluster.RoundRobin)
	for _, s := range c.Snapshot() {
		fmt.Print(s.Name)
		for _, j := range s.Queue {
			fmt.Print(" ", j.ID)
		}
		fmt.Println()
	}
	// Output:
	// w1 job0 job3 job6
	// w2 job1 job4
	// w3 job2 job5
}

func ExampleParseDistribution() {
	d, err := cluster.ParseDistribution("skewed")
	fmt.Println(d, err)
	_, err = cluster.ParseDistribution("even")
	fmt.Println(errors.Is(err, cluster.ErrInvalid), err)
	// Output:
	// skewed <nil>
	// true invalid argument: distribution "even" (want first, blocks, round_robin or skewed)
}

func ExampleParseVictimPolicy() {
	p, err := cluster.ParseVictimPolicy("best_of_two")
	fmt.Println(p, err)
	_, err = cluster.ParseVictimPolicy("nearest")
	fmt.Println(errors.Is(err, cluster.ErrInvalid), err)
	// Output:
	// best_of_two <nil>
	// true invalid argument: victim policy "nearest" (want most_loaded, random or best_of_two)
}

// Grow sizes a deque once for a known number of pushes.
func ExampleDeque_Grow() {
	var d cluster.Deque[string]
	d.Grow(3)
	for _, job := range []string{"a", "b", "c"} {
		d.PushBack(job)
	}
	front, _ := d.PopFront()
	back, _ := d.PopBack()
	fmt.Println(d.Len(), front, back)
	// Output:
	// 1 a c
}

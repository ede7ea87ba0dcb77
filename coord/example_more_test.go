package coord_test

import (
	"errors"
	"fmt"

	"github.com/worksteal/steal/coord"
)

func ExampleNew() {
	c, err := coord.New([]string{"a", "b", "c"}, coord.Options{Victims: coord.BestOfTwo, Seed: 42})
	fmt.Println(c.Len(), c.Victims(), err)

	// Names must be distinct; the error names the offender.
	_, err = coord.New([]string{"a", "b", "a"}, coord.Options{})
	fmt.Println(err, errors.Is(err, coord.ErrDuplicateWorker))
	// Output:
	// 3 best_of_two <nil>
	// duplicate worker: a true
}

func ExampleNewExample() {
	c := coord.NewExample()
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
	c := coord.NewExample() // w1: job0 job1 job2, w2: job3 job4 job5
	t, _ := c.Steal("w3", []string{"w2", "w1"})
	fmt.Println(t.Victim, t.Job.ID, t.VictimQueueSize, t.ThiefQueueSize)

	// nil means every other worker; w1 now has the longest deque.
	t, _ = c.Steal("w3", nil)
	fmt.Println(t.Victim, t.Job.ID, t.VictimQueueSize, t.ThiefQueueSize)
	// Output:
	// w2 job5 2 1
	// w1 job2 2 2
}

// A failed steal returns a *coord.Error and changes nothing. Match its kind
// with errors.Is against a sentinel, or get at the details with errors.As.
func ExampleCluster_Steal_nothingToSteal() {
	c, _ := coord.New([]string{"w1", "w2"}, coord.Options{})
	_, err := c.Steal("w2", nil)
	fmt.Println(errors.Is(err, coord.ErrNothingToSteal))

	var e *coord.Error
	if errors.As(err, &e) {
		fmt.Printf("kind=%q detail=%q\n", e.Kind, e.Detail)
	}
	// Output:
	// true
	// kind="nothing to steal" detail="no candidate of w2 has a queued job"
}

// Push is the owner's end: the job pushed last runs first.
func ExampleCluster_Push() {
	c, _ := coord.New([]string{"w1"}, coord.Options{})
	c.Push("w1", coord.Job{ID: "a"})
	c.Push("w1", coord.Job{ID: "b"})
	err := c.Push("w1", coord.Job{ID: "a"}) // "a" is still live
	t, _ := c.Pop("w1")
	fmt.Println(t.Job.ID, t.QueueSize)
	fmt.Println(err)
	// Output:
	// b 1
	// duplicate job: a
}

func ExampleCluster_Complete() {
	c, _ := coord.New([]string{"w1", "w2"}, coord.Options{})
	c.Push("w1", coord.Job{ID: "a"})
	t, _ := c.Pop("w1") // "a" is now in flight at w1
	fmt.Println(c.Complete("w2", t.Job.ID))
	fmt.Println(c.Complete("w1", t.Job.ID), c.Live())
	// Output:
	// unknown job: a is not in flight at w2
	// <nil> 0
}

func ExampleCluster_Snapshot() {
	c := coord.NewExample()
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
	c, _ := coord.New([]string{"w1", "w2"}, coord.Options{})
	fmt.Println(c.AllIdle())
	c.Push("w1", coord.Job{ID: "a"})
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
	c, _ := coord.New([]string{"w1", "w2", "w3"}, coord.Options{})
	jobs := make([]coord.Job, 7)
	for k := range jobs {
		jobs[k] = coord.Job{ID: fmt.Sprintf("job%d", k)}
	}
	c.Distribute(jobs, coord.RoundRobin)
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
	d, err := coord.ParseDistribution("skewed")
	fmt.Println(d, err)
	_, err = coord.ParseDistribution("even")
	fmt.Println(errors.Is(err, coord.ErrInvalid), err)
	// Output:
	// skewed <nil>
	// true invalid argument: distribution "even" (want first, blocks, round_robin or skewed)
}

func ExampleParseVictimPolicy() {
	p, err := coord.ParseVictimPolicy("best_of_two")
	fmt.Println(p, err)
	_, err = coord.ParseVictimPolicy("nearest")
	fmt.Println(errors.Is(err, coord.ErrInvalid), err)
	// Output:
	// best_of_two <nil>
	// true invalid argument: victim policy "nearest" (want most_loaded, random or best_of_two)
}

// Grow sizes a deque once for a known number of pushes.
func ExampleDeque_Grow() {
	var d coord.Deque[string]
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

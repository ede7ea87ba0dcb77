package cluster

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Job is a unit of work. ID is unique among live jobs; Payload is opaque to
// the cluster (the node stores compact JSON there); Cost is how long the job
// runs, used only by simulations.
type Job struct {
	ID      string
	Payload string
	Cost    time.Duration
}

// Options tune a Cluster. The zero value is the default: MostLoaded victims
// and seed 0.
type Options struct {
	// Victims is the policy Steal and Pop use to choose a victim.
	Victims VictimPolicy
	// Seed seeds the generator of the random victim policies.
	Seed uint64
}

// Cluster is the coordinator state; see the package documentation. It is
// not safe for concurrent use.
type Cluster struct {
	workers []worker
	index   map[string]int      // worker name -> position in workers
	live    map[string]struct{} // ids of all queued and in-flight jobs
	opts    Options
	rng     *rand.Rand
}

type worker struct {
	name     string
	deque    Deque[Job]
	inFlight []Job // few at a time: a slice beats a map here
}

// New returns a cluster of the named workers, in that order, with empty
// deques. Names must be non-empty and distinct.
func New(names []string, opts Options) (*Cluster, error) {
	if len(names) == 0 {
		return nil, fail(Invalid, "a cluster needs at least one worker")
	}
	c := &Cluster{
		workers: make([]worker, len(names)),
		index:   make(map[string]int, len(names)),
		live:    make(map[string]struct{}),
		opts:    opts,
		rng:     rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
	}
	for i, name := range names {
		if name == "" {
			return nil, fail(Invalid, "empty worker name")
		}
		if _, dup := c.index[name]; dup {
			return nil, fail(DuplicateWorker, name)
		}
		c.index[name] = i
		c.workers[i].name = name
	}
	return c, nil
}

// NewExample returns the example cluster of the seed protocol: workers w1,
// w2 and w3; w1 holds job0, job1, job2 and w2 holds job3, job4, job5, front
// to back; w3 is idle. A node starts in this state until it receives init.
func NewExample() *Cluster {
	c, _ := New([]string{"w1", "w2", "w3"}, Options{})
	for j := range 6 {
		if err := c.Inject(fmt.Sprintf("w%d", j/3+1), Job{ID: fmt.Sprintf("job%d", j)}); err != nil {
			panic(err) // unreachable: fixed, valid input
		}
	}
	return c
}

// Victims reports the victim policy the cluster was built with.
func (c *Cluster) Victims() VictimPolicy { return c.opts.Victims }

// lookup returns the worker's position or an UnknownWorker error.
func (c *Cluster) lookup(name string) (int, error) {
	i, ok := c.index[name]
	if !ok {
		return 0, fail(UnknownWorker, name)
	}
	return i, nil
}

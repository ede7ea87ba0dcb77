package coord

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
	payload int                 // bytes of the live jobs' payloads
	opts    Options
	rng     *rand.Rand
}

type worker struct {
	name  string
	deque Deque[Job]

	// The jobs in flight, in the order taken. A completed job leaves a
	// hole (a Job with no ID) until holes are half the slice, when it is
	// compacted; at maps each id in flight to its position, so it also
	// counts them. So Complete is O(1) amortised however many jobs are in
	// flight, and in any order.
	inFlight []Job
	at       map[string]int
}

// take puts j in flight at w.
func (w *worker) take(j Job) {
	if w.at == nil {
		w.at = make(map[string]int)
	}
	w.at[j.ID] = len(w.inFlight)
	w.inFlight = append(w.inFlight, j)
}

// retire takes the job id out of flight at w and returns it, reporting
// whether it was in flight there.
func (w *worker) retire(id string) (Job, bool) {
	k, ok := w.at[id]
	if !ok {
		return Job{}, false
	}
	delete(w.at, id)
	j := w.inFlight[k]
	w.inFlight[k] = Job{}
	if holes := len(w.inFlight) - len(w.at); 2*holes >= len(w.inFlight) {
		kept := w.inFlight[:0]
		for _, j := range w.inFlight {
			if j.ID != "" {
				w.at[j.ID] = len(kept)
				kept = append(kept, j)
			}
		}
		clear(w.inFlight[len(kept):])
		w.inFlight = kept
	}
	return j, true
}

// flying returns the number of jobs in flight at w.
func (w *worker) flying() int { return len(w.at) }

// eachFlying calls f for each job in flight at w, in the order taken.
func (w *worker) eachFlying(f func(Job)) {
	for _, j := range w.inFlight {
		if j.ID != "" {
			f(j)
		}
	}
}

// New returns a cluster of the named workers, in that order, with empty
// deques. Names must be non-empty and distinct, and opts.Victims one of
// the listed policies; otherwise New returns an Invalid or
// DuplicateWorker error and no cluster.
func New(names []string, opts Options) (*Cluster, error) {
	if len(names) == 0 {
		return nil, fail(Invalid, "a cluster needs at least one worker")
	}
	if !opts.Victims.valid() {
		return nil, fail(Invalid, fmt.Sprintf("victim policy %v (want MostLoaded, Random or BestOfTwo)", opts.Victims))
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

// NewExample returns the example cluster of the work-stealing cluster
// exercise: workers w1, w2 and w3; w1 holds job0, job1, job2 and w2 holds
// job3, job4, job5, front to back; w3 is idle. A node starts in this state until it receives init.
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
		if name == "" {
			name = `"" (an empty name)` // else the message reads as if it named none
		}
		return 0, fail(UnknownWorker, name)
	}
	return i, nil
}

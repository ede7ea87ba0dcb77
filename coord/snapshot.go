package coord

// Snapshot is a copy of one worker's jobs: its deque front to back and its
// jobs in flight, oldest first.
type Snapshot struct {
	Name     string
	Queue    []Job
	InFlight []Job
}

// Snapshot copies every worker's jobs, in worker order. It is O(jobs).
func (c *Cluster) Snapshot() []Snapshot {
	out := make([]Snapshot, len(c.workers))
	for i := range c.workers {
		w := &c.workers[i]
		q := make([]Job, w.deque.Len())
		for k := range q {
			q[k] = w.deque.At(k)
		}
		var flying []Job
		if n := w.flying(); n > 0 {
			flying = make([]Job, 0, n)
			w.eachFlying(func(j Job) { flying = append(flying, j) })
		}
		out[i] = Snapshot{Name: w.name, Queue: q, InFlight: flying}
	}
	return out
}

// ReplaceQueues installs new deque contents, queues[i] front to back for
// worker i, as produced by running the queued jobs elsewhere (a simulation).
// Every job must have been queued before (its cost and payload may change);
// queued jobs that are absent are taken as completed and retired. In-flight
// jobs are untouched. It is all or nothing.
func (c *Cluster) ReplaceQueues(queues [][]Job) error {
	if len(queues) != len(c.workers) {
		return fail(Invalid, "need one queue per worker")
	}
	seen, err := c.checkRequeued(queues)
	if err != nil {
		return err
	}
	for i := range c.workers {
		d := &c.workers[i].deque
		for k := range d.Len() {
			if id := d.At(k).ID; !seen[id] {
				delete(c.live, id) // retired
			}
		}
	}
	c.payload = 0 // counted again: payloads may change, retired jobs leave
	for i, q := range queues {
		c.workers[i].deque = Deque[Job]{}
		c.workers[i].deque.Grow(len(q))
		for _, j := range q {
			c.payload += len(j.Payload)
			c.workers[i].deque.PushBack(j)
		}
		for _, j := range c.workers[i].inFlight {
			c.payload += len(j.Payload) // holes have none
		}
	}
	return nil
}

// checkRequeued checks that every job in queues is queued now (live and
// not in flight) and appears once, and returns the set of their ids.
func (c *Cluster) checkRequeued(queues [][]Job) (map[string]bool, error) {
	inFlight := make(map[string]bool)
	for i := range c.workers {
		c.workers[i].eachFlying(func(j Job) { inFlight[j.ID] = true })
	}
	n := 0
	for _, q := range queues {
		n += len(q)
	}
	seen := make(map[string]bool, n)
	for _, q := range queues {
		for _, j := range q {
			if _, live := c.live[j.ID]; !live || inFlight[j.ID] {
				return nil, fail(UnknownJob, j.ID+" was not queued")
			}
			if seen[j.ID] {
				return nil, fail(DuplicateJob, j.ID)
			}
			seen[j.ID] = true
		}
	}
	return seen, nil
}

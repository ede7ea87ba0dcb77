package cluster

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
		out[i] = Snapshot{Name: w.name, Queue: q, InFlight: append([]Job(nil), w.inFlight...)}
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
	queued := c.queuedIDs()
	seen := make(map[string]struct{}, len(queued))
	for _, q := range queues {
		for _, j := range q {
			if _, ok := queued[j.ID]; !ok {
				return fail(UnknownJob, j.ID+" was not queued")
			}
			if _, dup := seen[j.ID]; dup {
				return fail(DuplicateJob, j.ID)
			}
			seen[j.ID] = struct{}{}
		}
	}
	for id := range queued {
		if _, kept := seen[id]; !kept {
			delete(c.live, id)
		}
	}
	for i, q := range queues {
		c.workers[i].deque = Deque[Job]{}
		for _, j := range q {
			c.workers[i].deque.PushBack(j)
		}
	}
	return nil
}

func (c *Cluster) queuedIDs() map[string]struct{} {
	ids := make(map[string]struct{})
	for i := range c.workers {
		d := &c.workers[i].deque
		for k := range d.Len() {
			ids[d.At(k).ID] = struct{}{}
		}
	}
	return ids
}

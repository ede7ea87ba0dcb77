package coord

// WorkerState is what a worker looks like from outside: its deque length
// and how many of its jobs are in flight.
type WorkerState struct {
	Name      string
	QueueSize int
	InFlight  int
}

// Idle reports whether the worker has nothing queued and nothing in flight.
func (w WorkerState) Idle() bool { return w.QueueSize == 0 && w.InFlight == 0 }

// Workers returns the state of every worker in worker order.
func (c *Cluster) Workers() []WorkerState {
	out := make([]WorkerState, len(c.workers))
	for i := range c.workers {
		w := &c.workers[i]
		out[i] = WorkerState{Name: w.name, QueueSize: w.deque.Len(), InFlight: w.flying()}
	}
	return out
}

// AllIdle reports whether every worker is idle, i.e. no job is live. It is
// O(1): the live set is empty exactly when all deques and in-flight sets are.
func (c *Cluster) AllIdle() bool { return len(c.live) == 0 }

// Live reports the number of live jobs, queued or in flight.
func (c *Cluster) Live() int { return len(c.live) }

// Len reports the number of workers.
func (c *Cluster) Len() int { return len(c.workers) }

// Worker returns the state of one worker.
func (c *Cluster) Worker(name string) (WorkerState, error) {
	i, err := c.lookup(name)
	if err != nil {
		return WorkerState{}, err
	}
	w := &c.workers[i]
	return WorkerState{Name: w.name, QueueSize: w.deque.Len(), InFlight: w.flying()}, nil
}

// PayloadBytes is the total length of the payloads of the live jobs,
// queued and in flight.
func (c *Cluster) PayloadBytes() int { return c.payload }

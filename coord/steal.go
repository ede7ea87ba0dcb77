package coord

import "slices"

// Theft describes one successful steal.
type Theft struct {
	Thief, Victim   string
	Job             Job
	VictimQueueSize int // after the steal
	ThiefQueueSize  int // after the steal; the stolen job is at its front
}

// Steal moves one job from the back of a victim's deque to the front of the
// thief's, so the thief runs it next. The victim is chosen by the cluster's
// VictimPolicy among candidates (in listed order) that have a queued job;
// the thief itself is never a victim, and a worker listed twice is one
// candidate. A nil candidates list means every other worker. It returns a NothingToSteal error when no candidate has a
// job, and an UnknownWorker error when the thief or a candidate is unknown.
func (c *Cluster) Steal(thief string, candidates []string) (Theft, error) {
	t, err := c.lookup(thief)
	if err != nil {
		return Theft{}, err
	}
	v, err := c.chooseVictim(t, candidates)
	if err != nil {
		return Theft{}, err
	}
	job, _ := c.workers[v].deque.PopBack()
	c.workers[t].deque.PushFront(job)
	return Theft{
		Thief: thief, Victim: c.workers[v].name, Job: job,
		VictimQueueSize: c.workers[v].deque.Len(),
		ThiefQueueSize:  c.workers[t].deque.Len(),
	}, nil
}

// chooseVictim validates the candidates and returns the victim's position.
// It draws from the generator only once a victim is known to exist. A
// worker listed twice is one candidate, at its first place, so that the
// random policies choose among workers rather than entries of the list.
func (c *Cluster) chooseVictim(thief int, candidates []string) (int, error) {
	var busy, sizes []int
	var listed []bool // which workers are in busy, once it is long
	consider := func(i int) {
		n := c.workers[i].deque.Len()
		if i == thief || n == 0 {
			return
		}
		switch {
		case listed != nil:
			if listed[i] {
				return
			}
			listed[i] = true
		case len(busy) < 16:
			if slices.Contains(busy, i) {
				return
			}
		default: // a long list: look up in time independent of its length
			listed = make([]bool, len(c.workers))
			for _, b := range busy {
				listed[b] = true
			}
			if listed[i] {
				return
			}
			listed[i] = true
		}
		busy, sizes = append(busy, i), append(sizes, n)
	}
	if candidates == nil {
		for i := range c.workers {
			consider(i)
		}
	}
	for _, name := range candidates {
		i, err := c.lookup(name)
		if err != nil {
			return 0, err
		}
		consider(i)
	}
	if len(busy) == 0 {
		return 0, fail(NothingToSteal, "no candidate of "+c.workers[thief].name+" has a queued job")
	}
	return busy[c.opts.Victims.Pick(sizes, c.rng)], nil
}

// Taken describes a job handed to a worker by Pop.
type Taken struct {
	Worker    string
	Job       Job
	Victim    string // "" when the job came from the worker's own deque
	QueueSize int    // the worker's deque length afterwards
}

// Stolen reports whether Pop had to steal the job.
func (t Taken) Stolen() bool { return t.Victim != "" }

// Pop gives the worker its next job and marks it in flight: the front of
// its own deque, or, when that is empty, a job stolen from another worker
// by the cluster's VictimPolicy. It returns a NothingToSteal error when no
// worker has a queued job.
func (c *Cluster) Pop(worker string) (Taken, error) {
	i, err := c.lookup(worker)
	if err != nil {
		return Taken{}, err
	}
	taken := Taken{Worker: worker}
	if c.workers[i].deque.Len() == 0 {
		theft, err := c.Steal(worker, nil)
		if err != nil {
			return Taken{}, err
		}
		taken.Victim = theft.Victim
	}
	w := &c.workers[i]
	taken.Job, _ = w.deque.PopFront()
	taken.QueueSize = w.deque.Len()
	w.take(taken.Job)
	return taken, nil
}

package coord

// Push puts job on the front of the worker's deque: the owner's LIFO end, so
// the worker runs it next. The id must be non-empty and not live.
func (c *Cluster) Push(worker string, job Job) error {
	i, err := c.lookup(worker)
	if err != nil {
		return err
	}
	if err := c.admit(job); err != nil {
		return err
	}
	c.live[job.ID] = struct{}{}
	c.payload += len(job.Payload)
	c.workers[i].deque.PushFront(job)
	return nil
}

// Inject appends jobs, in order, at the back of the worker's deque: the end
// thieves take from, where initial and external work enters. It is all or
// nothing: one bad id rejects the whole batch.
func (c *Cluster) Inject(worker string, jobs ...Job) error {
	i, err := c.lookup(worker)
	if err != nil {
		return err
	}
	if err := c.admitAll(jobs); err != nil {
		return err
	}
	for _, j := range jobs {
		c.payload += len(j.Payload)
		c.workers[i].deque.PushBack(j)
	}
	return nil
}

// Distribute injects jobs over the workers as d places them; jobs[k] is job
// k of the distribution. All or nothing, like Inject.
func (c *Cluster) Distribute(jobs []Job, d Distribution) error {
	if err := c.admitAll(jobs); err != nil {
		return err
	}
	counts := make([]int, len(c.workers))
	d.Place(len(jobs), len(c.workers), func(_, w int) { counts[w]++ })
	for w, n := range counts {
		c.workers[w].deque.Grow(n)
	}
	d.Place(len(jobs), len(c.workers), func(k, w int) {
		c.payload += len(jobs[k].Payload)
		c.workers[w].deque.PushBack(jobs[k])
	})
	return nil
}

// Complete retires a job the worker has in flight; the id is no longer live
// and may be reused.
func (c *Cluster) Complete(worker, jobID string) error {
	i, err := c.lookup(worker)
	if err != nil {
		return err
	}
	j, ok := c.workers[i].retire(jobID)
	if !ok {
		name := jobID
		if name == "" {
			name = `"" (an empty id)` // else the message reads as if it named none
		}
		return fail(UnknownJob, name+" is not in flight at "+worker)
	}
	delete(c.live, jobID)
	c.payload -= len(j.Payload)
	return nil
}

// admit checks that one new job can enter the cluster.
func (c *Cluster) admit(j Job) error {
	if j.ID == "" {
		return fail(Invalid, "empty job id")
	}
	if _, dup := c.live[j.ID]; dup {
		return fail(DuplicateJob, j.ID)
	}
	return nil
}

// admitAll checks a batch, including duplicates within the batch itself,
// and marks its ids live; on error it marks none. Marking as it checks
// finds duplicates within the batch without a second set, which matters
// for batches of a million jobs.
func (c *Cluster) admitAll(jobs []Job) error {
	if len(c.live) == 0 {
		c.live = make(map[string]struct{}, len(jobs)) // sized once, not regrown
	}
	for k, j := range jobs {
		if err := c.admit(j); err != nil {
			for _, admitted := range jobs[:k] {
				delete(c.live, admitted.ID)
			}
			return err
		}
		c.live[j.ID] = struct{}{}
	}
	return nil
}

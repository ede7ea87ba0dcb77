package steal

import "time"

// stealTries is how many passes a spinning worker makes over the other
// workers before it gives up and parks, as the runtime's stealTries.
const stealTries = 4

// stealRunnextAfter is how long a task must sit in a victim's runnext
// before a thief takes it: long enough that the victim would have taken it
// by now if its current task were short (the runtime waits 3 µs).
const stealRunnextAfter = 3 * time.Microsecond

// stealWork makes up to stealTries passes over the other workers in a random
// order and takes half of the first non-empty ring it finds. On the last pass
// it may take a victim's runnext. It returns nil if it found nothing.
func (c *core) stealWork() *task { return c.stealPasses(stealTries) }

// stealPasses is stealWork with the number of passes given: a waiting
// worker makes one per round (helpUntil), a spinning one stealTries.
func (c *core) stealPasses(passes int) *task {
	workers := *c.pool.victims.Load()
	n := uint32(len(workers))
	if n < 2 {
		return nil
	}
	for pass := 0; pass < passes; pass++ {
		last := pass == passes-1
		start, stride := c.stealOrder(n)
		for i, pos := uint32(0), start; i < n; i, pos = i+1, (pos+stride)%n {
			v := workers[pos]
			if v == c {
				continue
			}
			c.stats.stealAttempts.inc()
			if t := c.stealFrom(v, last); t != nil {
				return t
			}
		}
	}
	return nil
}

// stealFrom takes the oldest fork-join task of v, else half of v's ring into
// w's, else on the last pass v's runnext.
func (c *core) stealFrom(v *core, withRunnext bool) *task {
	if t := v.jobs.Steal(); t != nil {
		c.traceSteal(v, 1)
		c.stats.steals.inc()
		c.stats.stolenIn.add(1)
		v.stolenOut.addAtomic(1)
		return t
	}
	before := c.ring.Len()
	if t := v.ring.StealHalf(&c.ring); t != nil {
		got := uint64(c.ring.Len()-before) + 1
		c.traceSteal(v, got)
		c.stats.steals.inc()
		c.stats.stolenIn.add(got)
		v.stolenOut.addAtomic(got)
		return t
	}
	if !withRunnext || v.runnext.Load() == nil {
		return nil
	}
	if t := c.stealRunnext(v); t != nil {
		c.traceSteal(v, 1)
		c.stats.steals.inc()
		c.stats.stolenIn.add(1)
		v.stolenOut.addAtomic(1)
		return t
	}
	return nil
}

// stealRunnext takes v's runnext only if it is still the same task after
// stealRunnextAfter: a worker between tasks takes its runnext within that
// time, so one that has not is busy with a long or blocked task (the
// runtime's usleep(3) in runqgrab). The CAS fails if v took it meanwhile.
func (c *core) stealRunnext(v *core) *task {
	t := v.runnext.Load()
	if t == nil {
		return nil
	}
	deadline := time.Now().Add(stealRunnextAfter)
	for time.Now().Before(deadline) {
		if v.runnext.Load() != t {
			return nil
		}
	}
	if v.runnext.CompareAndSwap(t, nil) {
		return t
	}
	return nil
}

// stealOrder returns a random start and a stride coprime to n, so that one
// pass visits every worker exactly once in an order that differs between
// thieves (the runtime's randomOrder).
func (c *core) stealOrder(n uint32) (start, stride uint32) {
	r := c.random()
	start = r % n
	stride = 1 + (r>>16)%(n-1)
	for gcd(stride, n) != 1 {
		stride++
		if stride >= n {
			stride = 1
		}
	}
	return start, stride
}

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// random is a xorshift32 step on w's private state.
func (c *core) random() uint32 {
	x := c.rnd
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	c.rnd = x
	return x
}

// traceSteal records a steal on w's timeline, if it has one.
func (c *core) traceSteal(v *core, tasks uint64) {
	if c.timeline != nil {
		c.timeline.add(evSteal, int32(v.id), int32(tasks))
	}
}

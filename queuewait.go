package steal

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

const defaultWaitEvery = 64

// Task origins, in a task's sub field: whether it came in through the
// inject queue from submitEntry, and whether its queue wait is timed.
const (
	subNone    uint8 = iota // spawned, forked, or a NewGroup child
	subQueued               // submitted
	subSampled              // submitted, and its context is a *waitStamp
)

// poolMetrics says which submitted tasks have their queue wait timed. Every
// submission reads it; the waits it times go to Pool.waits, which workers
// write, on other cache lines. (The count of submitted tasks is the inject
// queue's: see claimed.)
type poolMetrics struct {
	every uint64 // one task in every is timed; 0: none
	// sampleBelow: a task is timed when the hash of its position is at most
	// this, for about one position in every (every 1: all).
	sampleBelow uint64
}

// waitStamp describes a queued submission that is more than a function with
// the pool's context (see entry), and it wraps a timed task's context from
// the moment it is queued until a worker picks it up, carrying the time it
// was queued. No user code sees it: execute unwraps it before anything
// reads the task's context.
type waitStamp struct {
	context.Context       // the submitter's context; nil in an entry: the pool's
	at              int64 // nanoseconds since the pool started; -1: not timed
	goFn            bool  // the entry's fn is a func() (Go)
	forced          bool  // queued past the WithMaxQueued cap, uncounted
}

// markSubmitted marks e, about to enter the inject queue, as counted
// against WithMaxQueued or not. It runs at most once per task (a Submit
// that waits for room is refused before it gets here), and allocates only
// for a task queued past the cap. Whether the task is timed is decided by
// the inject queue, from the position it is about to take (sampledAt,
// stamp).
func (p *Pool) markSubmitted(e entry, counted bool) entry {
	if e.x == recordMark {
		t := (*task)(e.fn)
		t.external = counted
		t.sub = subQueued
		return e
	}
	if p.maxQueued == 0 || counted {
		return e
	}
	if e.x == nil || e.x == goMark {
		e.x = &waitStamp{at: -1, goFn: e.x == goMark}
	}
	e.x.forced = true
	return e
}

// sampledAt reports whether the submission at position pos of the inject
// queue has its queue wait timed. Fibonacci hashing (pos times 2^64 over
// the golden ratio) picks about one position in every, spread evenly over
// every residue of every period, so no pattern of submissions falls in
// step with it (TestQueueWaitSamplingSpread); and it costs a
// multiplication, where the random draw it replaced slowed a lone
// producer by more than the draw itself costs (docs/costs.md).
func (m *poolMetrics) sampledAt(pos uint64) bool {
	return m.every != 0 && pos*0x9E3779B97F4A7C15 <= m.sampleBelow
}

// stamp times e, about to take a position of the inject queue that
// sampledAt picked: it records the time in the entry's waitStamp (the
// record's, for a submission that made its record), allocating one if e
// has none. Callers test sampledAt first, which inlines; stamp does not.
func (p *Pool) stamp(e entry) entry {
	at := p.sinceStart()
	switch e.x {
	case recordMark:
		t := (*task)(e.fn)
		t.ctx = &waitStamp{Context: t.ctx, at: at}
		t.sub = subSampled
	case nil, goMark:
		e.x = &waitStamp{at: at, goFn: e.x == goMark}
	default:
		e.x.at = at
	}
	return e
}

func (p *Pool) sinceStart() int64 { return int64(time.Since(p.start)) }

// takeSubmitted accounts for a submitted task a worker is about to run or
// skip: it leaves Stats.Backlog, and a timed one records its wait and gets
// its own context back. (WithMaxQueued's count was released when the task
// left the inject queue; see pickedUp.)
//
// It reports whether t is timed, for execute to time its run as well
// (Stats.TaskTime): the same tasks, so the run costs no sampling of its
// own.
func (c *core) takeSubmitted(t *task) (timed bool) {
	c.stats.taken.inc() // seen at once: Backlog must not lag behind a long task
	if t.sub == subSampled {
		c.takeSampled(t)
		return true
	}
	return false
}

// recordRun records in Stats.TaskTime the run of a timed task that started
// at start (sinceStart). finish calls it.
func (c *core) recordRun(start int64) {
	c.pool.runs.record(time.Duration(c.pool.sinceStart() - start))
}

func (c *core) takeSampled(t *task) {
	ws := t.ctx.(*waitStamp)
	t.ctx, t.sub = ws.Context, subQueued
	c.pool.waits.record(time.Duration(c.pool.sinceStart() - ws.at))
}

// waitBounds are the upper bounds of QueueWait's buckets: 1, 2 and 5 times
// each power of ten from 1 µs to 10 s.
var waitBounds = func() []time.Duration {
	var b []time.Duration
	for d := time.Microsecond; d <= 10*time.Second; d *= 10 {
		b = append(b, d, 2*d, 5*d)
	}
	return b[:len(b)-2] // end at 10 s
}()

// waitHist is a histogram of queue waits, updated atomically by whichever
// worker picks up a timed task.
type waitHist struct {
	counts [23]atomic.Uint64 // len(waitBounds)+1; the last is for longer waits
	sum    atomic.Int64      // nanoseconds
}

func (h *waitHist) record(d time.Duration) {
	d = max(d, 0)
	i := 0
	for i < len(waitBounds) && d > waitBounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
}

// WaitHistogram is a histogram of durations of submitted tasks: in
// Stats.QueueWait, of how long they waited in the queue, from the moment
// the task was queued (by one of the calls Stats.Submitted counts) to the
// moment a worker picked it up (to run it, or to skip it; time that Submit
// spent blocked on a full backlog, WithMaxQueued, is not part of it); in
// Stats.TaskTime, of how long they ran. Only about one task in Every is
// timed (see WithQueueWaitSampling), the same tasks for both; Count is the
// number of timed tasks, not of all.
type WaitHistogram struct {
	Every int // about one submitted task in Every is timed; 0: none is
	// Bounds are the buckets' upper bounds, ascending: 1, 2, 5, 10, 20, 50
	// µs and so on up to 10 s. Counts[i] counts waits longer than
	// Bounds[i-1] and at most Bounds[i]; the last of its len(Bounds)+1
	// entries counts waits longer than 10 s.
	Bounds []time.Duration
	Counts []uint64
	Count  uint64        // sum of Counts
	Sum    time.Duration // total wait of the timed tasks
}

// snapshot copies h's counts; Count is their sum, so it agrees with Counts
// even while workers record.
func (h *waitHist) snapshot(every uint64) WaitHistogram {
	s := WaitHistogram{
		Every:  int(every),
		Bounds: append([]time.Duration(nil), waitBounds...),
		Counts: make([]uint64, len(h.counts)),
		Sum:    time.Duration(h.sum.Load()),
	}
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
		s.Count += s.Counts[i]
	}
	return s
}

// Quantile estimates the q-quantile of the waits (0.5: the median, 0.99:
// the 99th percentile) as Prometheus's histogram_quantile does: it finds
// the bucket holding the rank q*Count and interpolates linearly inside it,
// the first bucket starting at 0. A rank in the last bucket, past the
// largest bound, returns that bound. q is clamped to [0, 1] (NaN counts as
// 0); with no timed task Quantile returns 0.
func (h WaitHistogram) Quantile(q float64) time.Duration {
	if h.Count == 0 || len(h.Counts) != len(h.Bounds)+1 {
		return 0
	}
	if !(q > 0) { // also NaN
		q = 0
	}
	rank := min(q, 1) * float64(h.Count)
	var seen float64
	for i, n := range h.Counts {
		if n == 0 || seen+float64(n) < rank {
			seen += float64(n)
			continue
		}
		if i == len(h.Bounds) {
			break
		}
		lo := time.Duration(0)
		if i > 0 {
			lo = h.Bounds[i-1]
		}
		frac := (rank - seen) / float64(n)
		return lo + time.Duration(frac*float64(h.Bounds[i]-lo))
	}
	return h.Bounds[len(h.Bounds)-1]
}

// takenCount is how many submitted tasks the pool's workers and spares
// have started or skipped, modulo the machine word (see liveCounter).
func (p *Pool) takenCount() uint {
	var n uint
	for _, w := range p.workers {
		n += w.stats.taken.load()
	}
	p.spares.mu.Lock()
	defer p.spares.mu.Unlock()
	for _, w := range p.spares.all {
		n += w.stats.taken.load()
	}
	return n
}

// init sets the sampling rate from the pool's options.
func (m *poolMetrics) init(c *config) {
	m.every = defaultWaitEvery
	if c.waitEverySet {
		m.every = uint64(c.waitEvery)
	}
	if m.every > 0 {
		m.sampleBelow = math.MaxUint64 / m.every
	}
}

package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/worksteal/steal/coord"
)

// Options are the knobs of one simulation besides the jobs and the policy.
type Options struct {
	// StealLatency is the virtual time a steal request, or a fetch from
	// the central queue, takes to reach its target.
	StealLatency time.Duration
	// CentralService is the time the central queue's one server spends on
	// each fetch (Central policy only). The server handles one fetch at a
	// time, in the order they were asked: a fetch waits for those ahead
	// of it, then takes CentralService, then StealLatency. So the queue
	// hands out at most one job per CentralService, whatever the number
	// of workers, as a single queue leader does. 0 (the default) means no
	// server time: fetches never wait for each other.
	CentralService time.Duration
	// Horizon stops the run at this virtual time; 0 runs until every job
	// is done. Jobs still running at the horizon are preempted: what is
	// left of them goes back on the front of their worker's deque. A run
	// also stops, unfinished, at the last instant before the largest
	// time.Duration (about 292 years), however long its horizon.
	Horizon time.Duration
	// MaxEvents, when positive, stops the run once it has processed that
	// many events (a job finishing, a steal request arriving), at the time
	// of the last one, as a horizon would; Result.OutOfEvents then reports
	// it. A horizon bounds virtual time but not the work of simulating it,
	// which grows with the jobs and the steal requests that fit in it;
	// MaxEvents bounds that work.
	MaxEvents int
	// Seed seeds the random victim choices, the spawn tree and the costs
	// of spawned jobs, each drawn for (Seed, the child's key) as
	// Workload.JobCost draws an initial job's.
	Seed uint64
	// Spawn makes completing jobs create more jobs.
	Spawn Spawn
	// Sample records the run's state over time in Result.Samples; off by
	// default.
	Sample Sampling
}

// Simulate runs the jobs, queues[w] front to back on worker w, under the
// policy and returns what happened. It does not modify queues.
//
// It panics, with a message naming the value, if a task's cost,
// o.StealLatency or o.Spawn.Cost.Mean is negative, or if p's mode, or for
// a stealing mode its victim policy, is not one of the named constants:
// a negative duration would schedule events in the past and make virtual
// time run backwards. Negative CentralService and Horizon mean 0.
func Simulate(queues [][]Task, p Policy, o Options) Result {
	mustBeValid(queues, p, o)
	e := newEngine(queues, p, o)
	e.run()
	return e.result()
}

func mustBeValid(queues [][]Task, p Policy, o Options) {
	switch p.Mode {
	case NoSteal, Central:
	case StealOne, StealHalf:
		switch p.Victims {
		case coord.MostLoaded, coord.Random, coord.BestOfTwo:
		default:
			panic(fmt.Sprintf("sim: Simulate: unknown victim policy %v", p.Victims))
		}
	default:
		panic(fmt.Sprintf("sim: Simulate: unknown policy mode %d", int(p.Mode)))
	}
	if o.StealLatency < 0 {
		panic(fmt.Sprintf("sim: Simulate: negative steal latency %v", o.StealLatency))
	}
	if o.Spawn.Cost.Mean < 0 {
		panic(fmt.Sprintf("sim: Simulate: negative spawn cost mean %v", o.Spawn.Cost.Mean))
	}
	for w, q := range queues {
		for k, t := range q {
			if t.Cost < 0 {
				panic(fmt.Sprintf("sim: Simulate: task %d of worker %d (key %d) has a negative cost, %v", k, w, t.Key, t.Cost))
			}
		}
	}
}

// engine is the state of one run. Tasks are referred to by their index in
// tasks, so deques hold int32s and stay cache-friendly.
type engine struct {
	policy  Policy
	opts    Options
	latency int64
	tasks   []Task
	deques  []coord.Deque[int32]
	central coord.Deque[int32]
	victims *victims
	pending events
	running []int32 // task index per worker, -1 when not running
	started []int64 // when the running task started
	target  []int32 // victim of the worker's steal request in flight
	free    int64   // when the central server is next free (CentralService)
	parked  []int32 // idle workers waiting for a spawn to give them work
	rng     *rand.Rand
	now     int64
	stop    int64 // when the run stopped short of its last event
	done    int   // jobs completed
	budget  int   // Options.MaxEvents, or no limit
	res     Result

	// Sampling state (sample.go); sampleAt is noSample when off.
	sampleAt, sampleEvery int64
	sampleMax             int
	spare                 [][]int32 // Queues of dropped samples, for reuse
}

func newEngine(queues [][]Task, p Policy, o Options) *engine {
	w := len(queues)
	e := &engine{
		policy: p, opts: o, latency: int64(o.StealLatency),
		deques:  make([]coord.Deque[int32], w),
		victims: newVictims(w, p.Victims),
		running: make([]int32, w), started: make([]int64, w), target: make([]int32, w),
		rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x853c49e6748fea9b)),
		res: Result{Policy: p, Completed: make([]int, w), Busy: make([]time.Duration, w)},
	}
	for i := range e.running {
		e.running[i] = -1
	}
	total := 0
	for _, q := range queues {
		total += len(q)
	}
	e.tasks = make([]Task, 0, total) // spawned tasks may grow it later
	if p.Mode == Central {
		e.central.Grow(total)
	} else {
		for i, q := range queues {
			e.deques[i].Grow(len(q))
		}
	}
	if e.budget = o.MaxEvents; e.budget <= 0 {
		e.budget = math.MaxInt
	}
	for i, q := range queues {
		for _, t := range q {
			idx := e.add(t)
			if p.Mode == Central {
				e.central.PushBack(idx) // one queue, in worker then deque order
			} else {
				e.deques[i].PushBack(idx)
			}
		}
		e.victims.set(int32(i), e.deques[i].Len())
	}
	e.startSampling(o.Sample)
	return e
}

// add registers a task and accounts for its work in the bound.
func (e *engine) add(t Task) int32 {
	e.tasks = append(e.tasks, t)
	e.res.work.add(t.Cost)
	e.res.LongestJob = max(e.res.LongestJob, t.Cost)
	return int32(len(e.tasks) - 1)
}

// run starts every worker at time 0, then processes events in order until
// none is left or the horizon is reached, taking the samples that fall due
// between events.
func (e *engine) run() {
	for w := range e.deques {
		e.next(int32(w))
	}
	end := e.end()
	// Once every job is done, what is pending are steal requests in
	// flight: they would find every deque empty and change nothing, so
	// they are neither processed nor counted (as events or failed steals).
	for len(e.pending) > 0 && e.done < len(e.tasks) {
		at := e.pending[0].at
		if at > end {
			e.stopAt(end)
			return
		}
		if e.res.Events == e.budget {
			e.res.OutOfEvents = true
			e.stopAt(e.now)
			return
		}
		if at > e.sampleAt { // never true when sampling is off or over
			e.sampleBefore(at)
		}
		ev := e.pending.pop()
		e.now = ev.at
		switch ev.kind {
		case finished:
			e.complete(ev.worker)
		case arrived:
			e.take(ev.worker, e.target[ev.worker])
		}
		e.res.Events++
	}
	e.endSampling()
}

// stopAt ends the run, unfinished, at time t, before the pending events.
func (e *engine) stopAt(t int64) {
	e.stop = t
	e.sampleThrough(t)
}

// end is the last instant the run may reach: the horizon, or just before
// endOfTime, the instant every event that would happen later saturates to.
func (e *engine) end() int64 {
	if h := e.opts.Horizon; h > 0 && h < endOfTime {
		return int64(h)
	}
	return int64(endOfTime) - 1
}

// next gives an idle worker something to do, by policy.
func (e *engine) next(w int32) {
	if e.policy.Mode != Central {
		if i, ok := e.popFront(w); ok {
			e.start(w, i, 0)
			return
		}
	}
	switch e.policy.Mode {
	case NoSteal:
		// Idle for good: nobody else ever feeds this deque.
	case Central:
		if i, ok := e.central.PopFront(); ok {
			e.start(w, i, e.fetchDelay())
		} else {
			e.parked = append(e.parked, w)
		}
	default:
		e.steal(w)
	}
}

// fetchDelay is how long a fetch from the central queue asked now takes:
// the wait for the fetches ahead of it at the server, the service, and the
// latency. The job is taken off the queue when the fetch is asked, which
// keeps the queue's order: fetches are served in the order they came.
func (e *engine) fetchDelay() int64 {
	service := int64(e.opts.CentralService)
	if service <= 0 {
		return e.latency
	}
	done := after(max(e.now, e.free), service)
	e.free = done
	return after(done-e.now, e.latency)
}

// steal sends a steal request to a victim; with no latency it lands at once.
func (e *engine) steal(w int32) {
	v := e.victims.choose(e.rng)
	switch {
	case v < 0:
		e.parked = append(e.parked, w) // nothing queued anywhere
	case e.latency == 0:
		e.take(w, v)
	default:
		e.target[w] = v
		e.pending.push(event{at: after(e.now, e.latency), worker: w, kind: arrived})
	}
}

// take lands thief w's request on victim v: it moves one or half of v's
// jobs from the back of v's deque to the front of w's, order kept, and
// runs the first. A victim that ran dry meanwhile makes the thief retry.
func (e *engine) take(w, v int32) {
	n := e.deques[v].Len()
	if n == 0 {
		e.res.FailedSteals++
		e.steal(w)
		return
	}
	count := 1
	if e.policy.Mode == StealHalf {
		count = (n + 1) / 2
	}
	for range count {
		i, _ := e.popBack(v)
		e.pushFront(w, i)
	}
	e.res.Steals++
	e.res.Moved += count
	i, _ := e.popFront(w)
	e.start(w, i, 0)
}

// start runs task i on worker w after delay (a central fetch).
func (e *engine) start(w, i int32, delay int64) {
	e.running[w] = i
	e.started[w] = after(e.now, delay)
	e.pending.push(event{at: after(e.started[w], int64(e.tasks[i].Cost)), worker: w, kind: finished})
}

// complete retires w's running task, queues its children, moves w on, and
// then wakes parked workers, one per child, to steal the rest.
func (e *engine) complete(w int32) {
	i := e.running[w]
	e.running[w] = -1
	e.res.Completed[w]++
	e.done++
	e.res.Busy[w] += e.tasks[i].Cost
	e.res.Makespan = time.Duration(e.now)
	spawned := e.spawn(w, e.tasks[i])
	e.next(w)
	for ; spawned > 0 && len(e.parked) > 0; spawned-- {
		p := e.parked[len(e.parked)-1]
		e.parked = e.parked[:len(e.parked)-1]
		e.next(p)
	}
}

// spawn queues parent's children for worker w and returns how many.
func (e *engine) spawn(w int32, parent Task) int {
	n := e.opts.Spawn.children(parent, e.opts.Seed)
	if n > MaxTasks-len(e.tasks) { // len + n could wrap for a huge n
		return 0
	}
	for k := range n {
		c := n - 1 - k // deques: push backwards, so child 0 ends up in front
		if e.policy.Mode == Central {
			c = k // the central queue is FIFO: child 0 first
		}
		key := childKey(parent.Key, c)
		i := e.add(Task{Key: key, Cost: e.opts.Spawn.Cost.Draw(mix(e.opts.Seed) + key), Depth: parent.Depth + 1})
		if e.policy.Mode == Central {
			e.central.PushBack(i)
		} else {
			e.pushFront(w, i)
		}
	}
	return n
}

// The deque operations below keep the victim index in step.

func (e *engine) pushFront(w, i int32) {
	e.deques[w].PushFront(i)
	e.victims.set(w, e.deques[w].Len())
}

func (e *engine) popFront(w int32) (int32, bool) {
	i, ok := e.deques[w].PopFront()
	if ok {
		e.victims.set(w, e.deques[w].Len())
	}
	return i, ok
}

func (e *engine) popBack(w int32) (int32, bool) {
	i, ok := e.deques[w].PopBack()
	if ok {
		e.victims.set(w, e.deques[w].Len())
	}
	return i, ok
}

package node

import (
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// runSimulation answers {"type": "run_simulation", "msg_id": 2,
// "duration_ms": 1000, "policies": ["one/most_loaded", "none"]}.
//
// The jobs queued in the cluster run in the simulator (package sim) for
// duration_ms of virtual time under each policy, from the same start; the
// cluster is then left in the state the first policy produced: completed
// jobs are retired, the rest stay queued where that run left them, a job
// cut off mid-run keeps its remaining cost. policies defaults to steal one
// with the cluster's victim policy; names are as sim.ParsePolicy reads them.
// Jobs in flight belong to real workers and are not simulated. The steal
// latency and seed are init's.
//
// Without policies (the exercise's form) nothing answers it. With them,
// the reply and its fields are in the package documentation (Simulation):
// one result per policy; a run cut off at duration_ms says "finished":
// false and how many jobs are left, and reports no makespan. A request over
// MaxPolicies, MaxSimulatedJobs, MaxSimulatedEvents or MaxReplyBytes is
// refused, and changes nothing.
func (n *Node) runSimulation(req *request) error {
	horizon, policies, err := n.parseSimulation(req)
	if err != nil {
		return err
	}
	if err := n.checkSimulatedJobs(len(policies)); err != nil {
		return err // before Snapshot, which copies every job
	}
	snap := n.cluster.Snapshot()
	if err := n.checkReplyBytes(snap, len(policies)); err != nil {
		return err
	}
	n.head("run_simulation_ok", req)
	n.enc.float("duration_ms", toMillis(horizon))
	n.enc.arr("results")
	first, err := n.simulate(snap, policies, horizon)
	if err != nil {
		return err
	}
	n.enc.endArr()
	if err := n.cluster.ReplaceQueues(requeue(first, snap)); err != nil {
		return err // unreachable: the simulator neither invents nor copies jobs
	}
	n.enc.bool("all_idle", n.cluster.AllIdle())
	// The exercise's run_simulation names no policies and its expected
	// output has no reply to it: that form runs, and is answered by
	// nothing (check_cluster_state shows what it left).
	n.silent = req.Policies == nil
	return nil
}

// simulate runs the queued jobs under each policy in turn, within
// MaxSimulatedEvents in all, writes each result as it comes, and returns
// the queues the first run left. Only those are kept: a result holds a copy
// of every job left.
func (n *Node) simulate(snap []coord.Snapshot, policies []sim.Policy, horizon time.Duration) ([][]sim.Task, error) {
	queues := n.tasks(snap)
	var first [][]sim.Task
	budget := MaxSimulatedEvents
	for i, p := range policies {
		// With no budget left, one event is enough to tell whether the
		// run needs any.
		opts := sim.Options{StealLatency: n.latency, Horizon: horizon, Seed: n.seed, MaxEvents: max(budget, 1)}
		r := sim.Simulate(queues, p, opts)
		if budget -= r.Events; budget < 0 || r.OutOfEvents && !r.Finished {
			return nil, malformed("run_simulation needs more than the %d events allowed (MaxSimulatedEvents): "+
				"policy %v ran out %v ms into the %v ms asked for; ask for a shorter duration_ms or fewer policies",
				MaxSimulatedEvents, p, toMillis(r.Makespan), toMillis(horizon))
		}
		if i == 0 {
			first = r.Remaining
		}
		n.writeResult(r, snap)
	}
	return first, nil
}

func (n *Node) parseSimulation(req *request) (time.Duration, []sim.Policy, error) {
	ms, err := required(req.DurationMS, "duration_ms")
	if err != nil {
		return 0, nil, err
	}
	horizon, err := positiveMillis(ms, "duration_ms")
	if err != nil {
		return 0, nil, err
	}
	if req.Policies == nil {
		return horizon, []sim.Policy{{Mode: sim.StealOne, Victims: n.cluster.Victims()}}, nil
	}
	if len(req.Policies) == 0 || len(req.Policies) > MaxPolicies {
		return 0, nil, malformed("policies must list 1 to %d policies (MaxPolicies), not %d", MaxPolicies, len(req.Policies))
	}
	policies := make([]sim.Policy, len(req.Policies))
	for i, name := range req.Policies {
		if policies[i], err = sim.ParsePolicy(name); err != nil {
			return 0, nil, malformed("%v", err)
		}
	}
	return horizon, policies, nil
}

// tasks turns the queued jobs into simulator tasks. A task's key locates
// its job in the snapshot, worker in the high 32 bits and position in the
// low, so that no second copy of the jobs is needed to map tasks back.
func (n *Node) tasks(snap []coord.Snapshot) [][]sim.Task {
	queues := make([][]sim.Task, len(snap))
	for w, s := range snap {
		queues[w] = make([]sim.Task, len(s.Queue))
		for k, j := range s.Queue {
			queues[w][k] = sim.Task{Key: uint64(w)<<32 | uint64(k), Cost: n.costOf(j)}
		}
	}
	return queues
}

// requeue maps the simulator's remaining tasks back to jobs.
func requeue(remaining [][]sim.Task, snap []coord.Snapshot) [][]coord.Job {
	out := make([][]coord.Job, len(remaining))
	for w, q := range remaining {
		out[w] = make([]coord.Job, len(q))
		for k, t := range q {
			j := snap[t.Key>>32].Queue[uint32(t.Key)]
			j.Cost = t.Cost
			out[w][k] = j
		}
	}
	return out
}

func (n *Node) writeResult(r sim.Result, snap []coord.Snapshot) {
	e := &n.enc
	e.elem()
	e.str("policy", r.Policy.String())
	e.bool("finished", r.Finished)
	bound := r.LowerBoundNanos() / float64(time.Millisecond) // beyond a Duration's range for long runs
	if r.Finished {
		e.float("makespan_ms", toMillis(r.Makespan))
		e.float("lower_bound_ms", bound)
		e.float("makespan_ratio", r.Ratio())
	} else {
		e.float("lower_bound_ms", bound) // a cut-off run has no makespan
	}
	e.float("utilisation", r.Utilisation())
	e.int("steals", int64(r.Steals))
	e.int("failed_steals", int64(r.FailedSteals))
	e.int("jobs_moved", int64(r.Moved))
	e.int("jobs_completed", int64(r.Jobs()))
	if !r.Finished {
		e.int("jobs_left", int64(r.Left()))
	}
	idle, sizes := r.Idle(), r.QueueSizes()
	e.obj("completed")
	for w, s := range snap {
		e.int(s.Name, int64(r.Completed[w]))
	}
	e.end()
	e.obj("idle_ms")
	for w, s := range snap {
		e.float(s.Name, toMillis(idle[w]))
	}
	e.end()
	e.obj("queue_sizes")
	for w, s := range snap {
		e.int(s.Name, int64(sizes[w]))
	}
	e.end()
	e.end()
}

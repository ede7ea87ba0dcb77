package node

import (
	"strconv"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// defaultWorkers are init's workers when it names none (a plain Maelstrom
// init carries node_id and node_ids instead, which the node ignores).
var defaultWorkers = []string{"w1", "w2", "w3"}

// init replaces the whole cluster:
//
//	{"type": "init", "msg_id": 1, "workers": ["w1", "w2", "w3"],
//	 "jobs_to_distribute": 6, "distribution": "first", "victim": "most_loaded",
//	 "seed": 0, "cost": {"model": "fixed", "mean_ms": 10}, "steal_latency_ms": 0}
//
// Every field but type and msg_id is optional; the values shown are the
// defaults, except jobs_to_distribute, which defaults to 0. Jobs are named
// job0, job1, ... and placed by the distribution (first, blocks,
// round_robin or skewed; see coord.Distribution), each costing a draw
// from the cost model (fixed, uniform, exponential or pareto) keyed by
// (seed, job number). The reply is {"type": "init_ok", "in_reply_to": 1}.
func (n *Node) init(req *request) error {
	next, cost, latency, err := n.parseInit(req)
	if err != nil {
		return err
	}
	n.cluster, n.cost, n.latency = next, cost, latency
	n.seed = deref(req.Seed)
	n.head("init_ok", req)
	return nil
}

// parseInit builds the new cluster without touching the node.
func (n *Node) parseInit(req *request) (*coord.Cluster, sim.Cost, time.Duration, error) {
	opts := coord.Options{Seed: deref(req.Seed)}
	dist := coord.First
	var err error
	if req.Distribution != nil {
		if dist, err = coord.ParseDistribution(*req.Distribution); err != nil {
			return nil, sim.Cost{}, 0, err
		}
	}
	if req.Victim != nil {
		if opts.Victims, err = coord.ParseVictimPolicy(*req.Victim); err != nil {
			return nil, sim.Cost{}, 0, err
		}
	}
	jobs := deref(req.JobsToDistribute)
	if jobs < 0 || jobs > MaxJobs {
		return nil, sim.Cost{}, 0, malformed("jobs_to_distribute must be in [0, %d] (MaxJobs), not %d", MaxJobs, jobs)
	}
	cost, err := parseCost(req.Cost)
	if err != nil {
		return nil, sim.Cost{}, 0, err
	}
	latency, err := millis(req.StealLatencyMS, "steal_latency_ms", 0)
	if err != nil {
		return nil, sim.Cost{}, 0, err
	}
	workers := req.Workers
	if workers == nil {
		workers = defaultWorkers
	}
	if len(workers) > MaxWorkers {
		return nil, sim.Cost{}, 0, malformed("workers lists %d workers, over the limit of %d (MaxWorkers)", len(workers), MaxWorkers)
	}
	c, err := coord.New(workers, opts)
	if err != nil {
		return nil, sim.Cost{}, 0, err
	}
	wl := sim.Workload{Cost: cost, Seed: opts.Seed}
	all := make([]coord.Job, jobs)
	for k := range all {
		all[k] = coord.Job{ID: "job" + strconv.Itoa(k), Cost: wl.JobCost(k)}
	}
	return c, cost, latency, c.Distribute(all, dist)
}

// parseCost reads init's cost model; absent parts take DefaultCost's.
func parseCost(spec *costSpec) (sim.Cost, error) {
	cost := DefaultCost
	if spec == nil {
		return cost, nil
	}
	if spec.Model != nil {
		m, err := sim.ParseCostModel(*spec.Model)
		if err != nil {
			return cost, malformed("%v", err)
		}
		cost.Model = m
	}
	if spec.MeanMS != nil {
		mean, err := positiveMillis(*spec.MeanMS, "cost.mean_ms")
		if err != nil {
			return cost, err
		}
		cost.Mean = mean
	}
	return cost, nil
}

func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

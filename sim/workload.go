package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/worksteal/steal/coord"
)

// Workload describes a synthetic job mix: how many jobs, where they start,
// what they cost, whether they spawn more, and the steal latency.
type Workload struct {
	Workers      int
	Jobs         int
	Distribution coord.Distribution
	Cost         Cost
	Spawn        Spawn
	StealLatency time.Duration
	// CentralService is passed to every run as Options.CentralService.
	CentralService time.Duration
	Seed           uint64
	// Sample is passed to every run as Options.Sample.
	Sample Sampling
}

// Validate reports the first thing that makes the workload unrunnable,
// naming the field and the value: workers outside [1, MaxWorkers], jobs
// outside [0, MaxTasks], a cost mean that is not positive, a negative
// latency, service time, spawn cost mean, children or depth, a spawn
// probability outside [0, 1] (NaN included), or a distribution or cost
// model that is not one of the named constants. A number out of its
// bounds is reported as a *FieldError.
func (wl Workload) Validate() error {
	s := wl.Spawn
	switch {
	case wl.Workers < 1 || wl.Workers > MaxWorkers:
		return fieldError("Workers", "workers", fmt.Sprintf("must be in [1, %d]", MaxWorkers), wl.Workers, " (MaxWorkers)")
	case wl.Jobs < 0 || wl.Jobs > MaxTasks:
		return fieldError("Jobs", "jobs", fmt.Sprintf("must be in [0, %d]", MaxTasks), wl.Jobs, "")
	case !validDistribution(wl.Distribution):
		return fmt.Errorf("sim: unknown distribution %v", wl.Distribution)
	case !wl.Cost.Model.valid():
		return fmt.Errorf("sim: unknown cost model %v", wl.Cost.Model)
	case wl.Cost.Mean <= 0:
		return fieldError("Cost.Mean", "mean cost", "must be positive", wl.Cost.Mean, "")
	case wl.StealLatency < 0:
		return fieldError("StealLatency", "steal latency", "must not be negative", wl.StealLatency, "")
	case wl.CentralService < 0:
		return fieldError("CentralService", "central service time", "must not be negative", wl.CentralService, "")
	case !(s.Prob >= 0 && s.Prob <= 1): // written so that NaN fails too
		return fieldError("Spawn.Prob", "spawn probability", "must be in [0, 1]", s.Prob, "")
	case s.Children < 0 || s.Children > MaxTasks: // more could never be spawned
		return fieldError("Spawn.Children", "spawn children", fmt.Sprintf("must be in [0, %d]", MaxTasks), s.Children, "")
	case s.Depth < 0:
		return fieldError("Spawn.Depth", "spawn depth", "must not be negative", s.Depth, "")
	case !s.Cost.Model.valid():
		return fmt.Errorf("sim: unknown spawn cost model %v", s.Cost.Model)
	case s.Cost.Mean < 0:
		return fieldError("Spawn.Cost.Mean", "spawn cost mean", "must not be negative (0 means the jobs' cost)", s.Cost.Mean, "")
	}
	return nil
}

// A FieldError is Validate's error for a number of a Workload out of its
// bounds: which field, what it must be and what it has, apart, so that a
// program can say it in its own terms (steal sim names the flag).
type FieldError struct {
	Field string // the field as Go writes it: "Workers", "Cost.Mean", "Spawn.Prob"
	Want  string // the rule it breaks, such as "must be positive"
	Have  string // its value, formatted with %v

	what, note string // the field and a remark after the rule, in Error's words
}

func (e *FieldError) Error() string {
	return "sim: " + e.what + " " + e.Want + e.note + ", have " + e.Have
}

func fieldError(field, what, want string, have any, note string) error {
	return &FieldError{Field: field, Want: want, Have: fmt.Sprint(have), what: what, note: note}
}

// validDistribution reports whether d is one of cluster's distributions:
// only those have a name that parses back.
func validDistribution(d coord.Distribution) bool {
	_, err := coord.ParseDistribution(d.String())
	return err == nil
}

// Queues builds the initial deques: job k has key k and a cost drawn for
// (seed, k), and sits where the distribution places it.
func (wl Workload) Queues() [][]Task {
	counts := make([]int, wl.Workers)
	wl.Distribution.Place(wl.Jobs, wl.Workers, func(_, w int) { counts[w]++ })
	queues := make([][]Task, wl.Workers)
	for w, n := range counts {
		queues[w] = make([]Task, 0, n)
	}
	wl.Distribution.Place(wl.Jobs, wl.Workers, func(k, w int) {
		queues[w] = append(queues[w], Task{Key: uint64(k), Cost: wl.JobCost(k)})
	})
	return queues
}

// JobCost is the cost of job k: a draw from Cost keyed by (Seed, k).
func (wl Workload) JobCost(k int) time.Duration {
	return wl.Cost.Draw(mix(wl.Seed) + uint64(k))
}

// Run simulates the workload to completion under one policy. It panics
// with Validate's error if the workload is invalid, and as Simulate does if
// the policy is.
func (wl Workload) Run(p Policy) Result {
	wl.mustValidate("Run")
	return Simulate(wl.queuesFor(p), p, wl.options())
}

// Compare runs the same workload under each policy, in order. It panics as
// Run does.
func (wl Workload) Compare(policies []Policy) []Result {
	wl.mustValidate("Compare")
	queues := wl.Queues()
	out := make([]Result, len(policies))
	for i, p := range policies {
		q := queues
		if p.Mode == Central {
			q = wl.centralQueues()
		}
		out[i] = Simulate(q, p, wl.options())
	}
	return out
}

// queuesFor is the jobs' starting placement for p: Queues, but for the
// Central policy, whose one queue ignores the distribution, every job in
// id order (Simulate joins the workers' queues into the central one in
// worker order, which depends on the distribution: RoundRobin's is not
// the jobs' order).
func (wl Workload) queuesFor(p Policy) [][]Task {
	if p.Mode == Central {
		return wl.centralQueues()
	}
	return wl.Queues()
}

// centralQueues is every job, in id order, on the first worker: the
// Central policy's one queue.
func (wl Workload) centralQueues() [][]Task {
	queues := make([][]Task, wl.Workers)
	queues[0] = make([]Task, wl.Jobs)
	for k := range queues[0] {
		queues[0][k] = Task{Key: uint64(k), Cost: wl.JobCost(k)}
	}
	return queues
}

// mustValidate panics with Validate's error, wrapped to say who called:
// a workload with no workers, for one, would place none of its jobs and
// report them all done.
func (wl Workload) mustValidate(caller string) {
	if err := wl.Validate(); err != nil {
		panic(fmt.Errorf("sim: %s: %w", caller, unprefixed{err}))
	}
}

// unprefixed is err without its "sim: " prefix, which the panic's own
// prefix repeats; errors.As and errors.Is see err itself.
type unprefixed struct{ err error }

func (u unprefixed) Error() string { return strings.TrimPrefix(u.err.Error(), "sim: ") }
func (u unprefixed) Unwrap() error { return u.err }

func (wl Workload) options() Options {
	spawn := wl.Spawn
	if spawn.Cost.Mean == 0 {
		spawn.Cost = wl.Cost // children cost like their parents by default
	}
	return Options{StealLatency: wl.StealLatency, CentralService: wl.CentralService,
		Seed: wl.Seed, Spawn: spawn, Sample: wl.Sample}
}

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// simFlags are steal sim's flags. The defaults simulate 100,000 jobs on 64
// workers, which runs every policy in well under a second; with -samples
// they are a chart's (see sampleDefaults).
type simFlags struct {
	workers, jobs             int
	dist, cost, policies      string
	mean, latency             time.Duration
	seed                      uint64
	spawnProb                 float64
	spawnChildren, spawnDepth int
	json, samples             bool
}

func (f *simFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "workers", 64, fmt.Sprintf("number of workers, at most %d", sim.MaxWorkers))
	fs.IntVar(&f.jobs, "jobs", 100_000, fmt.Sprintf("number of initial jobs, at most %d", sim.MaxTasks))
	fs.StringVar(&f.dist, "dist", "first", "initial distribution: first, blocks, round_robin or skewed")
	fs.StringVar(&f.cost, "cost", "exponential", "job cost distribution: fixed, uniform, exponential or pareto (heavy-tailed)")
	fs.DurationVar(&f.mean, "mean", time.Millisecond, "mean job cost")
	fs.DurationVar(&f.latency, "steal-latency", 0, "virtual time a steal (or central fetch) takes, to model a network")
	fs.Uint64Var(&f.seed, "seed", 1, "seed for costs, spawns and random victims")
	fs.StringVar(&f.policies, "policies", "all", "comma-separated policies: none, central, one/<victims>, half/<victims> with victims random, most_loaded or best_of_two; or all")
	fs.Float64Var(&f.spawnProb, "spawn-prob", 0, "probability that a completing job spawns children")
	fs.IntVar(&f.spawnChildren, "spawn-children", 2, "children per spawning job")
	fs.IntVar(&f.spawnDepth, "spawn-depth", 3, fmt.Sprintf("generations of spawning; jobs stop spawning once a run has %d\n"+
		"jobs, spawned ones included", sim.MaxTasks))
	fs.BoolVar(&f.json, "json", false, "print JSON instead of a table")
	fs.BoolVar(&f.samples, "samples", false, "with -json, add each policy's queue lengths and utilisation over\n"+
		"virtual time, which bench/cmd/charts draws; the defaults become\n"+
		"-workers 8 -jobs 2000 -policies none,one/random,half/random")
}

// applySampleDefaults sets, when -samples was given, the flags that were
// not to sampleDefaults. -samples without -json is an error.
func (f *simFlags) applySampleDefaults(fs *flag.FlagSet) error {
	if !f.samples {
		return nil
	}
	if !f.json {
		return errors.New("-samples needs -json: samples are written only as JSON")
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for name, value := range sampleDefaults {
		if !given[name] {
			if err := fs.Set(name, value); err != nil {
				return err
			}
		}
	}
	return nil
}

// simFlagOf names the flag that sets each Workload field that
// sim.Validate may find out of bounds, for its *FieldError.
var simFlagOf = map[string]string{
	"Workers": "-workers", "Jobs": "-jobs", "Cost.Mean": "-mean", "StealLatency": "-steal-latency",
	"Spawn.Prob": "-spawn-prob", "Spawn.Children": "-spawn-children", "Spawn.Depth": "-spawn-depth",
}

// workload turns the flags into a validated workload and policy list.
func (f *simFlags) workload() (sim.Workload, []sim.Policy, error) {
	dist, err := coord.ParseDistribution(f.dist)
	if err != nil {
		return sim.Workload{}, nil, flagErr("-dist", err)
	}
	model, err := sim.ParseCostModel(f.cost)
	if err != nil {
		return sim.Workload{}, nil, flagErr("-cost", err)
	}
	policies, err := sim.ParsePolicies(f.policies)
	if err != nil {
		return sim.Workload{}, nil, flagErr("-policies", err)
	}
	wl := sim.Workload{
		Workers: f.workers, Jobs: f.jobs, Distribution: dist,
		Cost:         sim.Cost{Model: model, Mean: f.mean},
		Spawn:        sim.Spawn{Prob: f.spawnProb, Children: f.spawnChildren, Depth: f.spawnDepth},
		StealLatency: f.latency, Seed: f.seed,
	}
	if err := wl.Validate(); err != nil {
		var fe *sim.FieldError
		if errors.As(err, &fe) && simFlagOf[fe.Field] != "" {
			err = fmt.Errorf("%s %s, not %s", simFlagOf[fe.Field], fe.Want, fe.Have)
		} else {
			err = errors.New(strings.TrimPrefix(err.Error(), "sim: "))
		}
		return sim.Workload{}, nil, err
	}
	return wl, policies, nil
}

// runSim parses flags, runs every policy on the same workload and prints
// the comparison.
func runSim(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(Program+" sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f simFlags
	f.register(fs)
	if code := Parse(fs, args, stderr); code >= 0 {
		return code
	}
	if err := f.applySampleDefaults(fs); err != nil {
		fmt.Fprintln(stderr, Program+" sim:", err)
		return 2
	}
	wl, policies, err := f.workload()
	if err != nil {
		fmt.Fprintln(stderr, Program+" sim:", err)
		return 2
	}
	if f.samples {
		wl.Sample = chartSampling(wl)
	}
	start := time.Now()
	results := wl.Compare(policies)
	elapsed := time.Since(start)
	if f.json {
		err = writeJSON(stdout, wl, results)
	} else {
		err = writeTable(stdout, wl, results, elapsed)
	}
	if err != nil {
		fmt.Fprintln(stderr, Program+" sim:", err)
		return 1
	}
	return 0
}

func writeTable(w io.Writer, wl sim.Workload, results []sim.Result, elapsed time.Duration) error {
	fmt.Fprintf(w, "%d jobs (%v, mean %v, start: %v) on %d workers, steal latency %v, seed %d\n\n",
		wl.Jobs, wl.Cost.Model, wl.Cost.Mean, wl.Distribution, wl.Workers, wl.StealLatency, wl.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tmakespan\tmakespan/bound\tutilisation\tsteals\tfailed\tmoved\t")
	var unfinished []sim.Result
	for _, r := range results {
		// A run cut off early has no makespan: the instant it ended
		// would pass for one, and its ratio for a schedule's quality.
		makespan, ratio := roundTime(r.Makespan).String(), fmt.Sprintf("%.3f", r.Ratio())
		if !r.Finished {
			makespan, ratio = "unfinished", "-"
			unfinished = append(unfinished, r)
		}
		fmt.Fprintf(tw, "%v\t%s\t%s\t%.1f%%\t%d\t%d\t%d\t\n", r.Policy, makespan, ratio,
			100*r.Utilisation(), r.Steals, r.FailedSteals, r.Moved)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(results) > 0 {
		fmt.Fprintf(w, "\nlower bound max(work/W, longest job) = %s; simulated in %v\n",
			lowerBound(results[0]), elapsed.Round(time.Millisecond))
	}
	for _, r := range unfinished {
		fmt.Fprintf(w, "%v: unfinished, cut off at the end of virtual time (about 292 years) with %d of %d jobs done\n",
			r.Policy, r.Jobs(), r.Jobs()+r.Left())
	}
	return nil
}

// lowerBound formats r's lower bound, in hours where it is beyond what a
// time.Duration holds.
func lowerBound(r sim.Result) string {
	if lb := r.LowerBound(); lb < math.MaxInt64 {
		return roundTime(lb).String()
	}
	return fmt.Sprintf("%.0fh", r.LowerBoundNanos()/float64(time.Hour))
}

// roundTime rounds a time of a millisecond or more to the microsecond, for
// the table; a shorter one, which that would turn into 0s (jobs of a few
// nanoseconds), is kept to the nanosecond.
func roundTime(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d
	}
	return d.Round(time.Microsecond)
}

// flagErr names the flag whose value err refuses, without the package
// prefix the command's own prefix would repeat.
func flagErr(flag string, err error) error {
	return fmt.Errorf("%s: %s", flag, strings.TrimPrefix(err.Error(), "sim: "))
}

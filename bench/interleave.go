package main

// interleave measures the specs of each workload side by side: spec.Runs
// rounds, and in each round every implementation of the workload once, in
// a fresh process (run) that makes its warm-up runs and then one measured
// run; the order of the implementations shifts by one each round. A load
// spike on this shared machine then lands on all of them alike instead of
// on whichever implementation happened to be measuring, and a ratio taken
// within a round compares like with like. An implementation that fails
// (a wrong result, a crash, or a timeout, as the peers that deadlock on
// nested do) is not run again: its first failure is its result.
//
// specs must list each workload's implementations next to each other, as
// plan does. done, if not nil, is called with each workload's results as
// soon as its last round is over.
func interleave(specs []Spec, run func(Spec) Result, done func([]Result)) []Result {
	var out []Result
	for len(specs) > 0 {
		n := 1
		for n < len(specs) && specs[n].Workload == specs[0].Workload {
			n++
		}
		rs := interleaveOne(specs[:n], run)
		out = append(out, rs...)
		if done != nil {
			done(rs)
		}
		specs = specs[n:]
	}
	return out
}

// interleaveOne runs the rounds of one workload's specs.
func interleaveOne(specs []Spec, run func(Spec) Result) []Result {
	rounds := 0
	for _, s := range specs {
		rounds = max(rounds, s.Runs)
	}
	runs := make([][]Result, len(specs))
	failed := make([]*Result, len(specs))
	for round := range rounds {
		for k := range specs {
			i := (k + round) % len(specs)
			if failed[i] != nil || round >= specs[i].Runs {
				continue
			}
			one := specs[i]
			one.Runs = 1
			r := run(one)
			if !r.OK {
				failed[i] = &r
				continue
			}
			runs[i] = append(runs[i], r)
		}
	}
	out := make([]Result, len(specs))
	for i, s := range specs {
		if failed[i] != nil {
			out[i] = *failed[i]
			out[i].Runs = s.Runs
			continue
		}
		out[i] = combine(runs[i])
	}
	return out
}

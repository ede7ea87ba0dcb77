package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestValidateNamesEveryBadField: each invalid field is refused with a
// message naming the field and the value given. A NaN probability fails
// every comparison, so a range check written as "p < 0 || p > 1" lets it
// through, and the spawn test then spawns on every job, as if it were 1.
func TestValidateNamesEveryBadField(t *testing.T) {
	good := Workload{Workers: 2, Jobs: 10, Cost: Cost{Mean: ms}}
	for _, c := range []struct {
		mutate func(*Workload)
		want   []string
	}{
		{func(w *Workload) { w.Spawn.Prob = math.NaN() }, []string{"spawn probability", "NaN"}},
		{func(w *Workload) { w.Spawn.Prob = math.Inf(1) }, []string{"spawn probability", "+Inf"}},
		{func(w *Workload) { w.Spawn.Prob = -0.5 }, []string{"spawn probability", "-0.5"}},
		{func(w *Workload) { w.Spawn.Children = -3 }, []string{"spawn children", "-3"}},
		{func(w *Workload) { w.Spawn.Children = MaxTasks + 1 }, []string{"spawn children", fmt.Sprint(MaxTasks + 1), fmt.Sprint(MaxTasks)}},
		{func(w *Workload) { w.Spawn.Depth = -4 }, []string{"spawn depth", "-4"}},
		{func(w *Workload) { w.Spawn.Cost.Mean = -ms }, []string{"spawn cost", "-1ms"}},
		{func(w *Workload) { w.Spawn.Cost.Model = 9 }, []string{"spawn cost model", "CostModel(9)"}},
		{func(w *Workload) { w.Cost.Model = -1 }, []string{"cost model", "CostModel(-1)"}},
		{func(w *Workload) { w.Distribution = 42 }, []string{"distribution", "Distribution(42)"}},
		{func(w *Workload) { w.Workers = MaxWorkers + 1 }, []string{"workers", fmt.Sprint(MaxWorkers + 1), fmt.Sprint(MaxWorkers)}},
		{func(w *Workload) { w.Workers = math.MaxInt }, []string{"workers", fmt.Sprint(math.MaxInt)}},
	} {
		bad := good
		c.mutate(&bad)
		err := bad.Validate()
		if err == nil {
			t.Errorf("%+v accepted", bad)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not say %q", bad, err, w)
			}
		}
	}
	// The largest valid values pass.
	edge := good
	edge.Workers, edge.Spawn = MaxWorkers, Spawn{Prob: 1, Children: 2, Depth: 1}
	if err := edge.Validate(); err != nil {
		t.Errorf("%+v: %v", edge, err)
	}
}

// mustPanic runs f and reports whether it panicked with a message holding
// every one of want.
func mustPanic(t *testing.T, what string, f func(), want ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", what)
			return
		}
		for _, w := range want {
			if !strings.Contains(fmt.Sprint(r), w) {
				t.Errorf("%s: panic %q does not say %q", what, r, w)
			}
		}
	}()
	f()
}

// TestRunRefusesInvalidWorkload: Run and Compare used to simulate an
// invalid workload anyway, and a workload with no workers placed none of
// its jobs and came back Finished, its jobs silently gone.
func TestRunRefusesInvalidWorkload(t *testing.T) {
	bad := Workload{Workers: 0, Jobs: 5, Cost: Cost{Mean: ms}}
	mustPanic(t, "Run", func() { bad.Run(Policy{Mode: StealOne}) }, "sim: Run:", "workers must be in [1, ", "have 0")
	mustPanic(t, "Compare", func() { bad.Compare(AllPolicies()) }, "sim: Compare:", "workers must be in")
	neg := Workload{Workers: 2, Jobs: 5, Cost: Cost{Mean: -ms}}
	mustPanic(t, "Run", func() { neg.Run(Policy{}) }, "mean cost", "-1ms")
}

// TestSimulateRefusesInvalidArguments: a negative cost or latency used to
// schedule events before the current instant, so virtual time ran
// backwards: busy time came out negative, and a negative latency ran the
// steal loop to the end of virtual time, 292 years, unfinished. Unknown
// modes and victim policies ran as some other policy under a made-up name.
func TestSimulateRefusesInvalidArguments(t *testing.T) {
	two := func() [][]Task { return [][]Task{{{Cost: ms}, {Cost: ms}, {Cost: ms}}, {}} }
	steal := Policy{Mode: StealOne}
	mustPanic(t, "negative cost", func() {
		Simulate([][]Task{{{Key: 7, Cost: ms}}, {{Key: 8, Cost: -ms}}}, steal, Options{})
	}, "task 0 of worker 1", "key 8", "-1ms")
	mustPanic(t, "negative latency", func() { Simulate(two(), steal, Options{StealLatency: -ms}) }, "steal latency", "-1ms")
	mustPanic(t, "unknown mode", func() { Simulate(two(), Policy{Mode: 7}, Options{}) }, "mode", "7")
	mustPanic(t, "unknown victims", func() {
		Simulate(two(), Policy{Mode: StealHalf, Victims: 42}, Options{})
	}, "victim policy", "42")
	mustPanic(t, "negative spawn cost", func() {
		Simulate(two(), steal, Options{Spawn: Spawn{Prob: 1, Children: 1, Depth: 1, Cost: Cost{Mean: -ms}}})
	}, "spawn cost", "-1ms")
	// Zero costs and latencies, and central with any victim policy, are fine.
	if r := Simulate([][]Task{{{Cost: 0}}, {}}, steal, Options{}); !r.Finished {
		t.Errorf("zero cost: %+v", r)
	}
	if r := Simulate(two(), Policy{Mode: Central, Victims: 42}, Options{}); !r.Finished {
		t.Errorf("central ignores victims: %+v", r)
	}
}

// TestRunPanicsWithValidateError: the value Run and Compare panic with is
// Validate's error, wrapped, so that errors.As finds the *FieldError.
func TestRunPanicsWithValidateError(t *testing.T) {
	bad := Workload{Workers: 0, Jobs: 5, Cost: Cost{Mean: ms}}
	for name, f := range map[string]func(){
		"Run":     func() { bad.Run(Policy{}) },
		"Compare": func() { bad.Compare(AllPolicies()) },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != "Workers" {
					t.Errorf("%s panicked with %v, want an error holding Validate's *FieldError for Workers", name, err)
				}
			}()
			f()
		}()
	}
}

package sim

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/steal/coord"
)

// Six 10 ms jobs on the first of three workers, sampled every 10 ms: with
// no stealing worker 0's deque drains one job per sample and a third of the
// workers is busy.
func TestSamplesOfSixJobsOnThreeWorkers(t *testing.T) {
	queues := [][]Task{fixed(10*ms, 10*ms, 10*ms, 10*ms, 10*ms, 10*ms), nil, nil}
	r := Simulate(queues, Policy{Mode: NoSteal}, Options{Sample: Sampling{Every: 10 * ms}})
	if len(r.Samples) != 7 || r.SampleEvery != 10*ms {
		t.Fatalf("%d samples every %v, want 7 every 10ms", len(r.Samples), r.SampleEvery)
	}
	for i, s := range r.Samples {
		want := max(0, 5-i)
		if s.At != time.Duration(i)*10*ms || !slices.Equal(s.Queues, []int32{int32(want), 0, 0}) {
			t.Errorf("sample %d: at %v queues %v, want %v [%d 0 0]", i, s.At, s.Queues, time.Duration(i)*10*ms, want)
		}
		if running := min(1, 6-i); s.Running != running || s.Done != i || s.Jobs != 6 || s.BusyTime != float64(time.Duration(i)*10*ms) {
			t.Errorf("sample %d: %+v", i, s)
		}
		if u := r.SampleUtilisation(i); i > 0 && i < 7 && u != 1.0/3 {
			t.Errorf("sample %d: utilisation %v, want 1/3", i, u)
		}
	}
	// Stealing: the two idle workers take a job each at time 0.
	r = Simulate(queues, Policy{Mode: StealOne}, Options{Sample: Sampling{Every: 10 * ms}})
	if got := r.Samples[0].Queues; !slices.Equal(got, []int32{3, 0, 0}) || r.SampleUtilisation(0) != 1 {
		t.Errorf("steal one at 0: queues %v utilisation %v", got, r.SampleUtilisation(0))
	}
	if last := r.Samples[len(r.Samples)-1]; last.At != 20*ms || last.Done != 6 || last.Queued() != 0 {
		t.Errorf("last sample %+v, want all 6 done at 20ms", last)
	}
}

// sampledWorkload runs long enough under every policy to need decimation.
func sampledWorkload(spawn float64, latency time.Duration) Workload {
	return Workload{Workers: 6, Jobs: 3000, Distribution: coord.Skewed,
		Cost: Cost{Model: Exponential, Mean: ms}, StealLatency: latency, Seed: 7,
		Spawn:  Spawn{Prob: spawn, Children: 2, Depth: 2},
		Sample: Sampling{Every: 10 * time.Microsecond, Max: 300}}
}

func TestSamplesAreBoundedAndEvenlySpaced(t *testing.T) {
	for _, maxSamples := range []int{0, 1, 2, 3, 300, 301} {
		wl := sampledWorkload(0, 0)
		wl.Sample.Max = maxSamples
		want := maxSamples
		switch maxSamples {
		case 0:
			want = DefaultMaxSamples
		case 1, 3:
			want = 2
		case 301:
			want = 300
		}
		for _, r := range wl.Compare(AllPolicies()) {
			n := len(r.Samples)
			if n > want || n <= want/2 {
				t.Errorf("max %d, %v: %d samples, want in (%d, %d]", maxSamples, r.Policy, n, want/2, want)
				continue
			}
			for i, s := range r.Samples {
				if s.At != time.Duration(i)*r.SampleEvery {
					t.Fatalf("max %d, %v: sample %d at %v, every %v", maxSamples, r.Policy, i, s.At, r.SampleEvery)
				}
			}
			if last := r.Samples[n-1]; last.At < r.Makespan || last.At-r.SampleEvery >= r.Makespan {
				t.Errorf("max %d, %v: last sample at %v, makespan %v, every %v", maxSamples, r.Policy, last.At, r.Makespan, r.SampleEvery)
			}
		}
	}
}

func TestSamplesAreDeterministicAndDoNotPerturbTheRun(t *testing.T) {
	wl := sampledWorkload(0.3, 50*time.Microsecond)
	a, b := wl.Compare(AllPolicies()), wl.Compare(AllPolicies())
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two sampled runs of the same seed differ")
	}
	wl.Sample = Sampling{}
	plain := wl.Compare(AllPolicies())
	for i, r := range a {
		if plain[i].Samples != nil {
			t.Fatalf("%v: samples with sampling off", r.Policy)
		}
		r.Samples, r.SampleEvery = nil, 0
		if !reflect.DeepEqual(r, plain[i]) {
			t.Errorf("%v: sampling changed the result", r.Policy)
		}
	}
}

func TestSamplesAccountForEveryJob(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spawn   float64
		latency time.Duration
	}{{"no spawn", 0, 0}, {"no spawn, latency", 0, 200 * time.Microsecond}, {"spawn, latency", 0.5, 200 * time.Microsecond}} {
		wl := sampledWorkload(tc.spawn, tc.latency)
		for _, r := range wl.Compare(AllPolicies()) {
			for i, s := range r.Samples {
				if tc.spawn == 0 && s.Jobs != wl.Jobs {
					t.Fatalf("%s, %v: sample %d has %d jobs, want %d", tc.name, r.Policy, i, s.Jobs, wl.Jobs)
				}
				if got := s.Queued() + s.Running + s.Fetching + s.Done; got != s.Jobs {
					t.Fatalf("%s, %v: sample %d: queued %d + running %d + fetching %d + done %d != jobs %d",
						tc.name, r.Policy, i, s.Queued(), s.Running, s.Fetching, s.Done, s.Jobs)
				}
				if s.Running+s.Fetching > wl.Workers || (r.Policy.Mode != Central && s.Fetching != 0) {
					t.Fatalf("%s, %v: sample %d: running %d fetching %d", tc.name, r.Policy, i, s.Running, s.Fetching)
				}
				if u := r.SampleUtilisation(i); u < 0 || u > 1 {
					t.Fatalf("%s, %v: sample %d: utilisation %v", tc.name, r.Policy, i, u)
				}
			}
			if last := r.Samples[len(r.Samples)-1]; last.Done != r.Jobs() || last.BusyTime != float64(r.TotalWork) {
				t.Errorf("%s, %v: last sample %d done, busy %v; result %d jobs, work %v",
					tc.name, r.Policy, last.Done, last.BusyTime, r.Jobs(), r.TotalWork)
			}
		}
	}
}

func TestSamplesStopAtTheHorizon(t *testing.T) {
	r := Simulate([][]Task{fixed(10*ms, 10*ms), nil}, Policy{Mode: NoSteal},
		Options{Horizon: 15 * ms, Sample: Sampling{Every: 4 * ms}})
	var at []time.Duration
	for _, s := range r.Samples {
		at = append(at, s.At)
	}
	if want := []time.Duration{0, 4 * ms, 8 * ms, 12 * ms}; !slices.Equal(at, want) {
		t.Fatalf("samples at %v, want %v", at, want)
	}
	if s := r.Samples[3]; s.Done != 1 || s.Running != 1 || s.BusyTime != float64(12*ms) {
		t.Errorf("sample at 12ms: %+v", s)
	}
}

func TestSamplesOfAnEmptyRun(t *testing.T) {
	r := Simulate([][]Task{nil, nil}, Policy{Mode: StealHalf}, Options{Sample: Sampling{Every: ms}})
	if len(r.Samples) != 1 || r.Samples[0].Jobs != 0 || r.SampleUtilisation(0) != 0 {
		t.Fatalf("samples %+v", r.Samples)
	}
}

// TestSamplesOfARunThatFinishedBeforeItStopped: worker 0 runs a 2 ms and a
// 2.5 ms job while worker 1's steal request is 10 ms on its way. The jobs
// are done at 4.5 ms; a horizon at 5 ms, or running out of events before
// the request arrives, stops a run that has finished. Its samples stopped
// at the last multiple of 3 ms before the stop, 3 ms, which shows a job
// still running: a finished run's series goes on to the first sample at or
// after its end, 6 ms, which shows every job done.
func TestSamplesOfARunThatFinishedBeforeItStopped(t *testing.T) {
	queues := [][]Task{fixed(2*ms, 2500*time.Microsecond), nil}
	for _, o := range []Options{{Horizon: 5 * ms}, {MaxEvents: 2}} {
		o.StealLatency, o.Sample = 10*ms, Sampling{Every: 3 * ms}
		r := Simulate(queues, Policy{Mode: StealOne}, o)
		if !r.Finished || r.Makespan != 4500*time.Microsecond {
			t.Fatalf("horizon %v, max events %d: finished %v at %v, want 4.5ms", o.Horizon, o.MaxEvents, r.Finished, r.Makespan)
		}
		last := r.Samples[len(r.Samples)-1]
		if last.At != 6*ms || last.Done != 2 || last.Running != 0 {
			t.Errorf("horizon %v, max events %d: last sample %+v, want all done at 6ms", o.Horizon, o.MaxEvents, last)
		}
	}
}

// TestSamplesOfAFinishedRunStopAtItsMakespan: worker 0 runs two 10 ns jobs
// while the others' steal requests are 100 ns on their way. The jobs are
// done at 20 ns; the requests that arrive later change nothing, so the
// series ends at the first sample at or after 20 ns, as Sampling.Max says,
// not after the last request.
func TestSamplesOfAFinishedRunStopAtItsMakespan(t *testing.T) {
	queues := [][]Task{fixed(10, 10), nil, nil}
	r := Simulate(queues, Policy{Mode: StealOne, Victims: coord.Random},
		Options{StealLatency: 100, Sample: Sampling{Every: 7}})
	if !r.Finished || r.Makespan != 20 {
		t.Fatalf("finished %v at %v, want 20ns", r.Finished, r.Makespan)
	}
	last := r.Samples[len(r.Samples)-1]
	if last.At != 21 || len(r.Samples) != 4 || last.Done != 2 {
		t.Errorf("%d samples, the last %+v; want 4, the last at 21ns with both jobs done", len(r.Samples), last)
	}
}

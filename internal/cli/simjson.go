package cli

import (
	"encoding/json"
	"io"
	"time"

	"github.com/worksteal/steal/sim"
)

// simJSON is steal sim -json's document. Times are in milliseconds. The
// chart program in bench/cmd/charts reads it, samples included: keep its
// copy of these types in step (its tests run this command).
type simJSON struct {
	Workers        int          `json:"workers"`
	Jobs           int          `json:"jobs"`
	Distribution   string       `json:"distribution"`
	Cost           string       `json:"cost"`
	MeanMS         float64      `json:"mean_ms"`
	StealLatencyMS float64      `json:"steal_latency_ms"`
	Seed           uint64       `json:"seed"`
	Results        []jsonResult `json:"results"`
}

// jsonResult is one policy's outcome.
type jsonResult struct {
	Policy        string       `json:"policy"`
	MakespanMS    float64      `json:"makespan_ms"`
	LowerBoundMS  float64      `json:"lower_bound_ms"`
	Ratio         *float64     `json:"makespan_ratio,omitempty"` // left out when not finished: a cut-off is no makespan
	Utilisation   float64      `json:"utilisation"`
	Steals        int          `json:"steals"`
	FailedSteals  int          `json:"failed_steals"`
	JobsMoved     int          `json:"jobs_moved"`
	JobsCompleted int          `json:"jobs_completed"`
	JobsLeft      int          `json:"jobs_left"`
	Finished      bool         `json:"finished"`          // false: cut off at the end of virtual time, and makespan_ms is when
	Samples       []jsonSample `json:"samples,omitempty"` // with -samples only
}

// jsonSample is the state of a run at one instant of virtual time.
type jsonSample struct {
	AtMS        float64 `json:"at_ms"`
	Queues      []int32 `json:"queues"`      // jobs queued on each worker, not counting the one it runs
	Central     int     `json:"central"`     // jobs in the central queue (policy central only)
	Utilisation float64 `json:"utilisation"` // busy share of worker time since the previous sample
}

// ratio is r's makespan over its lower bound, or nil for a run cut off
// before it finished, whose "makespan" is only where it was cut off.
func ratio(r sim.Result) *float64 {
	if !r.Finished {
		return nil
	}
	x := r.Ratio()
	return &x
}

func writeJSON(w io.Writer, wl sim.Workload, results []sim.Result) error {
	out := simJSON{wl.Workers, wl.Jobs, wl.Distribution.String(), wl.Cost.Model.String(),
		ms(wl.Cost.Mean), ms(wl.StealLatency), wl.Seed, nil}
	for _, r := range results {
		out.Results = append(out.Results, jsonResult{
			r.Policy.String(), ms(r.Makespan), r.LowerBoundNanos() / float64(time.Millisecond), ratio(r), r.Utilisation(),
			r.Steals, r.FailedSteals, r.Moved, r.Jobs(), r.Left(), r.Finished, samples(r),
		})
	}
	enc := json.NewEncoder(w)
	if len(results) == 0 || results[0].Samples == nil {
		enc.SetIndent("", "  ") // samples stay on one line: thousands of numbers
	}
	return enc.Encode(out)
}

// samples converts r's time series, nil when it has none.
func samples(r sim.Result) []jsonSample {
	var out []jsonSample
	for i, s := range r.Samples {
		out = append(out, jsonSample{ms(s.At), s.Queues, s.Central, r.SampleUtilisation(i)})
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// sampleDefaults replace, with -samples, the defaults of the flags not
// given: a small workload whose chart shows every worker, and the three
// policies that tell the story of stealing.
var sampleDefaults = map[string]string{
	"workers":  "8",
	"jobs":     "2000",
	"policies": "none,one/random,half/random",
}

// chartSampling picks the sampling for -samples: at most 1,000 samples
// (fewer when there are so many workers that they would take over 4 Mi
// queue lengths), starting at an interval that puts about half of them
// within the workload's lower bound, so that a well balanced run gets 500
// to 1,000 and a longer one is halved down to the same.
func chartSampling(wl sim.Workload) sim.Sampling {
	maxSamples := min(1000, max(2, (4<<20)/max(1, wl.Workers)))
	var total, longest time.Duration
	for k := range wl.Jobs {
		c := wl.JobCost(k)
		total += c
		longest = max(longest, c)
	}
	bound := max(total/time.Duration(max(1, wl.Workers)), longest)
	return sim.Sampling{Every: max(bound/time.Duration(maxSamples/2), 1), Max: maxSamples}
}

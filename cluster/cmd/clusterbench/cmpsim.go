package main

import (
	"fmt"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// simModel is one simulated curve of the comparison, calibrated from its
// run: a design's server time per job (ServiceUS, the central policy's
// one server, handing out at most one job per service time) and latency
// per fetch or steal.
type simModel struct {
	Name      string  `json:"name"`
	Design    string  `json:"design"`
	Policy    string  `json:"policy"` // central, steal-half, steal-one
	ServiceUS float64 `json:"service_us,omitempty"`
	LatencyUS float64 `json:"latency_us"`
	// Saturation: 1 / service, the most jobs/s the model's server hands
	// out, however many workers ask; 0 for no server.
	Saturation float64 `json:"saturation_jobs_per_s,omitempty"`
	// KneeW: the first simulated W whose jobs/s falls below 80 % of W
	// jobs a millisecond (the ideal for 1 ms jobs); 0 if none up to the
	// largest W simulated.
	KneeW int    `json:"knee_workers"`
	From  string `json:"calibrated_from"`
}

// bestRate is the highest jobs/s of design over the cells of the named
// workloads, any W and mode; 0 if none.
func bestRate(cells []*cell, design string, wls ...string) float64 {
	b := 0.0
	for _, c := range cells {
		for _, n := range wls {
			if c.Workload == n && c.Design == design {
				b = max(b, c.JobsPerS)
			}
		}
	}
	return b
}

// calibrateCompare builds the simulated models from the run: each central
// design, and steal as the server-bound queue its measured rate makes it,
// get a service time of 1 / the best jobs/s they reached on flat jobs
// (flat-noop and the scale cells, any W and mode): the server did at
// least that much per second, so this is the most optimistic service time
// the run supports. Their fetch latency is central-f1's Fetch p50 in its
// first cell with in-process workers, less its service time (steal's: none). "steal, steals
// only" is the model stealing was designed for: no server time per job,
// the observed steal latency.
func calibrateCompare(cfg cmpConfig, r *cmpReport) []simModel {
	all := append(append([]*cell{}, r.Cells...), r.ScaleCells...)
	rate := func(d string) float64 { return bestRate(all, d, "flat-noop", scaleName) }
	fetchLat := 0.0 // the first central-f1 cell with in-process workers, which time their fetches
	for _, c := range all {
		if c.Design == "central-f1" && c.FetchP50US > 0 {
			fetchLat = c.FetchP50US
			break
		}
	}
	stealLat := us(pooledP50(r.Latency, "steal"))
	var out []simModel
	fk := fmt.Sprintf("central-f%d", cfg.FetchK)
	for _, d := range []string{"central-f1", fk, "central-async", "steal"} {
		best := rate(d)
		if best == 0 {
			continue
		}
		m := simModel{Name: d + ", server-bound", Design: d, Policy: "central", ServiceUS: 1e6 / best, Saturation: best,
			LatencyUS: max(0, fetchLat-1e6/best), From: fmt.Sprintf("best flat jobs/s %.0f", best)}
		if d == "steal" {
			// Its per-job server work as one server, and no latency
			// besides: the most this model can grant it.
			m.LatencyUS = 0
		}
		out = append(out, m)
	}
	out = append(out, simModel{Name: "steal, steals only", Design: "steal", Policy: "steal-half", LatencyUS: stealLat,
		From: "observed steal p50, no server time per job"})
	return out
}

// simulateModels runs each model for 1 ms jobs, 200 a worker, all queued
// on the first worker (the steal policy) or in the one queue (central),
// at each W, and sets each model's knee.
func simulateModels(ws []int, models []simModel) []simPoint {
	d := func(usec float64) time.Duration { return time.Duration(usec * float64(time.Microsecond)) }
	var out []simPoint
	for i := range models {
		m := &models[i]
		p := sim.Policy{Mode: sim.Central}
		if m.Policy == "steal-half" {
			p = sim.Policy{Mode: sim.StealHalf, Victims: coord.BestOfTwo}
		}
		for _, w := range ws {
			wl := sim.Workload{Workers: w, Jobs: simJobsPerW * w, Distribution: coord.First,
				Cost:         sim.Cost{Model: sim.Fixed, Mean: time.Millisecond},
				StealLatency: d(m.LatencyUS), CentralService: d(m.ServiceUS)}
			res := wl.Run(p)
			rate := float64(res.Jobs()) / res.Makespan.Seconds()
			out = append(out, simPoint{Design: m.Name, W: w, JobsPerS: rate})
			if m.KneeW == 0 && rate < 0.8*float64(w)*1000 {
				m.KneeW = w
			}
		}
	}
	return out
}

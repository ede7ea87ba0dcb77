package main

import (
	"fmt"
	"time"

	"github.com/worksteal/steal/coord"
	"github.com/worksteal/steal/sim"
)

// calibration is what the simulator is given, from the measurements.
type calibration struct {
	// CentralServiceUS: server time per job of the central queue with
	// Fetch(1): 1 / its best no-op jobs/s. CentralKServiceUS: the same
	// for Fetch(k), per job (a batch fetch modelled as k cheaper ones).
	CentralServiceUS  float64 `json:"central_service_us"`
	CentralKServiceUS float64 `json:"central_k_service_us"`
	// CentralLatencyUS: the Fetch(1) round trip less the service time.
	CentralLatencyUS float64 `json:"central_latency_us"`
	// StealLatencyUS, StealOneLatencyUS: the observed steal p50.
	StealLatencyUS    float64 `json:"steal_latency_us"`
	StealOneLatencyUS float64 `json:"steal_one_latency_us"`
	// DistCeiling: the cluster package's best no-op jobs/s on this one server. The
	// simulator does not model the cluster package's per-job writes; this is their limit.
	DistCeiling float64 `json:"dist_noop_ceiling_jobs_per_s"`
	JobMS       float64 `json:"job_ms"`
	JobsPerW    int     `json:"sim_jobs_per_worker"`
}

// simPoint is the simulated jobs/s of one policy at one W.
type simPoint struct {
	Design   string  `json:"design"`
	W        int     `json:"workers"`
	JobsPerS float64 `json:"jobs_per_s"`
}

const simJobsPerW = 200

// best returns the highest jobs/s of design on workload over W, with
// in-process workers.
func best(cells []*cell, wlName, design string) float64 {
	b := 0.0
	for _, c := range cells {
		if c.Workload == wlName && c.Design == design && c.Mode == modeInProcess {
			b = max(b, c.JobsPerS)
		}
	}
	return b
}

// find returns the cell of design on workload at W with in-process
// workers, or nil; the simulator is calibrated from those.
func find(cells []*cell, wlName, design string, w int) *cell {
	return findIn(cells, modeInProcess, wlName, design, w)
}

// findIn returns the cell of design on workload at W with workers in
// mode, or nil.
func findIn(cells []*cell, mode, wlName, design string, w int) *cell {
	for _, c := range cells {
		if c.Workload == wlName && c.Design == design && c.W == w && c.Mode == mode {
			return c
		}
	}
	return nil
}

// pooledP50 is the p50 of every observed steal of design, at every W.
func pooledP50(rows []*latencyRow, design string) time.Duration {
	var all []time.Duration
	for _, r := range rows {
		if r.Design == design {
			all = append(all, r.samples...)
		}
	}
	return percentile(all, 50)
}

func calibrate(cfg config, cells []*cell, lat []*latencyRow) (calibration, error) {
	fk := fmt.Sprintf("central-f%d", cfg.FetchK)
	c1, ck := best(cells, "noop", "central-f1"), best(cells, "noop", fk)
	if c1 == 0 || ck == 0 {
		return calibration{}, fmt.Errorf("calibration needs the noop workload's central runs")
	}
	cal := calibration{
		CentralServiceUS: 1e6 / c1, CentralKServiceUS: 1e6 / ck,
		StealLatencyUS:    us(pooledP50(lat, "steal")),
		StealOneLatencyUS: us(pooledP50(lat, "steal-one")),
		DistCeiling:       best(cells, "noop", "steal"),
		JobMS:             1, JobsPerW: simJobsPerW,
	}
	if c := find(cells, "skew-1ms", "central-f1", cfg.Workers[0]); c != nil {
		cal.CentralLatencyUS = max(0, c.FetchP50US-cal.CentralServiceUS)
	}
	return cal, nil
}

// simulate runs the simulator, calibrated, for 1 ms jobs at each W:
// 200 jobs a worker, all queued on the first worker for the steal
// policies (a worst case for stealing), in the one queue for central.
func simulate(cfg config, cal calibration) []simPoint {
	d := func(usec float64) time.Duration { return time.Duration(usec * float64(time.Microsecond)) }
	type pol struct {
		name            string
		p               sim.Policy
		latency, server time.Duration
	}
	pols := []pol{
		{"steal", sim.Policy{Mode: sim.StealHalf, Victims: coord.BestOfTwo}, d(cal.StealLatencyUS), 0},
		{"steal-one", sim.Policy{Mode: sim.StealOne, Victims: coord.BestOfTwo}, d(cal.StealOneLatencyUS), 0},
		{"central-f1", sim.Policy{Mode: sim.Central}, d(cal.CentralLatencyUS), d(cal.CentralServiceUS)},
		{fmt.Sprintf("central-f%d", cfg.FetchK), sim.Policy{Mode: sim.Central}, d(cal.CentralLatencyUS), d(cal.CentralKServiceUS)},
	}
	var out []simPoint
	for _, w := range cfg.SimWorkers {
		for _, p := range pols {
			wl := sim.Workload{Workers: w, Jobs: simJobsPerW * w, Distribution: coord.First, Seed: 1,
				Cost:         sim.Cost{Model: sim.Fixed, Mean: time.Duration(cal.JobMS * float64(time.Millisecond))},
				StealLatency: p.latency, CentralService: p.server}
			r := wl.Run(p.p)
			out = append(out, simPoint{Design: p.name, W: w, JobsPerS: float64(r.Jobs()) / r.Makespan.Seconds()})
		}
	}
	return out
}

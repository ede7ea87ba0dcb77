package main

import (
	"fmt"
	"io"
	"time"
)

// cell is one design on one workload at one W: every run and the medians.
type cell struct {
	Workload     string    `json:"workload"`
	Kind         string    `json:"kind"`
	W            int       `json:"workers"`
	Design       string    `json:"design"`
	Mode         string    `json:"mode"` // where the workers ran: modeInProcess or modeProcesses
	Jobs         int       `json:"jobs"`
	RunsMS       []float64 `json:"runs_ms"`
	MedianMS     float64   `json:"median_ms"`
	JobsPerS     float64   `json:"jobs_per_s"`                      // jobs / median time
	LowerBoundMS float64   `json:"lower_bound_ms,omitempty"`        // jobs that take time only
	Ratio        float64   `json:"makespan_ratio,omitempty"`        // median / lower bound
	Stolen       float64   `json:"stolen_median"`                   // jobs moved by steals
	PreStolen    float64   `json:"pre_stolen_median"`               // skew: before the clock
	FetchP50US   float64   `json:"fetch_p50_us,omitempty"`          // central: time to a Fetch's first job
	MsgsPerJob   float64   `json:"server_msgs_per_job"`             // in + out, from the start of loading, once the workers settled
	CPUPerJobUS  float64   `json:"cpu_us_per_job"`                  // every process of the trial, while the clock ran
	SelfCPUUS    float64   `json:"bench_cpu_us_per_job,omitempty"`  // of which this process's: server and submitter (processes only)
	KidCPUUS     float64   `json:"worker_cpu_us_per_job,omitempty"` // and the worker processes'
	KidSlices    float64   `json:"worker_slices_per_job,omitempty"` // times a worker process's thread was put on a CPU, per job
	Failed       int       `json:"failed_runs,omitempty"`           // runs that did not finish (not in the medians)
	Late         int64     `json:"late_submits,omitempty"`          // all runs: Submit answered cluster.ErrMaybeStored
	stolen, pre  []float64 // per run
	msgs, cpu    []float64
	self, kidCPU []float64
	kidN         []float64
	fetches      []time.Duration
}

func (c *cell) add(r trialResult) {
	c.RunsMS = append(c.RunsMS, ms(r.Elapsed))
	c.stolen = append(c.stolen, float64(r.Stolen))
	c.pre = append(c.pre, float64(r.PreStolen))
	c.msgs = append(c.msgs, float64(r.Msgs)/float64(c.Jobs))
	c.cpu = append(c.cpu, us(r.CPU)/float64(c.Jobs))
	c.self = append(c.self, us(r.CPU-r.KidCPU)/float64(c.Jobs))
	c.kidCPU = append(c.kidCPU, us(r.KidCPU)/float64(c.Jobs))
	c.kidN = append(c.kidN, float64(r.KidSlices)/float64(c.Jobs))
	c.Late += r.Late
	c.fetches = append(c.fetches, r.Fetches...)
}

func (c *cell) finish(wl workload) {
	c.MedianMS = median(c.RunsMS)
	if c.MedianMS > 0 {
		c.JobsPerS = float64(c.Jobs) / (c.MedianMS / 1000)
	}
	if wl.Job > 0 {
		c.LowerBoundMS = ms(wl.lowerBound(c.W))
		c.Ratio = c.MedianMS / c.LowerBoundMS
	}
	c.Stolen, c.PreStolen = median(c.stolen), median(c.pre)
	c.MsgsPerJob = median(c.msgs)
	c.CPUPerJobUS = median(c.cpu)
	if c.Mode == modeProcesses {
		c.SelfCPUUS, c.KidCPUUS, c.KidSlices = median(c.self), median(c.kidCPU), median(c.kidN)
	}
	c.FetchP50US = us(percentile(c.fetches, 50))
}

// sweep runs every workload at every W, interleaving the designs: for each
// run, each design once (with -procs, in-process and then in processes),
// so that a noisy moment hits all of them.
func sweep(cfg config, log io.Writer) ([]*cell, error) {
	return runCells(cfg.Workloads, cfg.Workers, sweepDesigns(cfg), cfg.Runs, false, log)
}

// runCells runs each workload at each W on every design of ds, runs times,
// the designs interleaved within each run. A trial that fails ends it with
// the error, unless lenient: then the run is counted in the cell's Failed
// and left out of its medians, and the rest goes on.
func runCells(wls []workload, ws []int, ds []design, runs int, lenient bool, log io.Writer) ([]*cell, error) {
	var out []*cell
	for _, wl := range wls {
		for _, w := range ws {
			if wl.MaxW > 0 && w > wl.MaxW {
				continue
			}
			ds := designsFor(wl, ds)
			cells := make([]*cell, len(ds))
			for i, d := range ds {
				cells[i] = &cell{Workload: wl.Name, Kind: wl.Kind, W: w, Design: d.Name, Mode: d.Mode, Jobs: wl.total()}
			}
			for run := range runs {
				for i, d := range ds {
					r, err := runTrial(d, wl, w, false)
					if err != nil && !lenient {
						return out, err
					}
					if err != nil {
						cells[i].Failed++
						fmt.Fprintf(log, "%-14s W=%-3d run %d %-13s %-10s failed: %v\n", wl.Name, w, run+1, d.Name, d.Mode, err)
						continue
					}
					cells[i].add(r)
					fmt.Fprintf(log, "%-14s W=%-3d run %d %-13s %-10s %8.1f ms %7.1f µs CPU/job\n", wl.Name, w, run+1, d.Name, d.Mode, ms(r.Elapsed), us(r.CPU)/float64(wl.total()))
				}
			}
			for _, c := range cells {
				c.finish(wl)
			}
			out = append(out, cells...)
		}
	}
	return out, nil
}

// designsFor is ds without the designs that do not run wl: those that
// differ from another only in how they submit batches, for a workload
// that submits none.
func designsFor(wl workload, ds []design) []design {
	var out []design
	for _, d := range ds {
		if !d.BatchOnly || wl.Bundle > 0 {
			out = append(out, d)
		}
	}
	return out
}

// sweepDesigns lists the sweep's trials of one run in order: each design
// in-process, followed, with -procs, by the same design in processes.
func sweepDesigns(cfg config) []design {
	var out []design
	for _, d := range designs(cfg.FetchK) {
		out = append(out, d)
		if cfg.Procs {
			out = append(out, procDesign(d, cfg.FetchK))
		}
	}
	return out
}

// latencyRow is the observed steal latency of one design at one W, over
// every steal of every run.
type latencyRow struct {
	Design  string  `json:"design"`
	W       int     `json:"workers"`
	Steals  int     `json:"steals"`
	Empty   int     `json:"empty_answers"`
	Moved   float64 `json:"jobs_per_steal"`
	P50US   float64 `json:"p50_us"`
	P99US   float64 `json:"p99_us"`
	stolen  int64
	samples []time.Duration
}

// latencies runs the latency workload with the steal observer on, for the
// two stealing designs, interleaved.
func latencies(cfg config, log io.Writer) ([]*latencyRow, error) {
	var out []*latencyRow
	ds := designs(cfg.FetchK)[:2] // steal, steal-one
	for _, w := range cfg.LatencyWorkers {
		rows := []*latencyRow{{Design: ds[0].Name, W: w}, {Design: ds[1].Name, W: w}}
		for range cfg.Runs {
			for i, d := range ds {
				r, err := runTrial(d, cfg.Latency, w, true)
				if err != nil {
					return out, err
				}
				rows[i].samples = append(rows[i].samples, r.Steals...)
				rows[i].Empty += r.Empty
				rows[i].stolen += r.Stolen
			}
		}
		for _, row := range rows {
			row.Steals = len(row.samples)
			row.P50US, row.P99US = us(percentile(row.samples, 50)), us(percentile(row.samples, 99))
			if row.Steals > 0 {
				row.Moved = float64(row.stolen) / float64(row.Steals)
			}
			fmt.Fprintf(log, "steal latency %-9s W=%-2d %d steals p50 %.0f µs p99 %.0f µs\n", row.Design, w, row.Steals, row.P50US, row.P99US)
		}
		out = append(out, rows...)
	}
	return out, nil
}

// recoveryRow: kill -9 of a worker process mid-job, per design.
type recoveryRow struct {
	Design      string    `json:"design"`
	How         string    `json:"how"`
	TakeoverMS  []float64 `json:"takeover_ms"`
	CompleteMS  []float64 `json:"complete_ms"`
	MedTakeover float64   `json:"takeover_median_ms"`
	MedComplete float64   `json:"complete_median_ms"`
}

func recoveries(cfg config, log io.Writer) ([]*recoveryRow, error) {
	rows := []*recoveryRow{
		{Design: "dist", How: "lease 1 s expires, a survivor takes the records over"},
		{Design: "central", How: "AckWait 1 s passes, the server delivers the job again"},
	}
	fns := []func() (recoveryResult, error){recoveryDist, recoveryCentral}
	for run := range cfg.RecoveryRuns {
		for i, f := range fns {
			r, err := f()
			if err != nil {
				return rows, fmt.Errorf("recovery %s: %w", rows[i].Design, err)
			}
			rows[i].TakeoverMS = append(rows[i].TakeoverMS, ms(r.Takeover))
			rows[i].CompleteMS = append(rows[i].CompleteMS, ms(r.Complete))
			fmt.Fprintf(log, "recovery %-7s run %d takeover %.0f ms complete %.0f ms\n", rows[i].Design, run+1, ms(r.Takeover), ms(r.Complete))
		}
	}
	for _, r := range rows {
		r.MedTakeover, r.MedComplete = median(r.TakeoverMS), median(r.CompleteMS)
	}
	return rows, nil
}

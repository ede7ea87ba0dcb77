package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/worksteal/steal/cluster/natsserver"
)

// The comparison (-compare) asks where distributed stealing should beat a
// central JetStream work queue, and whether today's cluster package does:
// spawn-heavy trees, a wide fan-out of sleeping children, roots of very
// uneven size, flat jobs submitted one Submit (one Publish) each or in
// calls of 100 (one SubmitBatch, or SubmitBundle for steal-bundle; a
// central queue publishes the call's jobs asynchronously and awaits the
// acks), and a skewed start, on every design side by side in one run, with the
// workers in processes of their own by default; then how each design
// scales in workers: the control traffic of idle workers and the rate of
// sleeping jobs at W = 16, 64, 256, and the simulator calibrated from
// the run, up to 1000 workers.

// cmpConfig is what -compare measures.
type cmpConfig struct {
	Runs      int         `json:"runs"`
	FetchK    int         `json:"fetch_k"`
	Workers   []int       `json:"workers"`
	Modes     []string    `json:"modes"` // modeInProcess, modeProcesses
	Designs   []string    `json:"designs"`
	Workloads []workload  `json:"workloads"`
	Scale     scaleConfig `json:"scale"`
	// LatencyWorkers, Latency: the steal-latency runs that calibrate the
	// simulator's steal policies (in-process, observed).
	LatencyWorkers []int    `json:"latency_workers"`
	Latency        workload `json:"latency_workload"`
	SimWorkers     []int    `json:"sim_workers"`
}

// scaleConfig is the part that runs many workers.
type scaleConfig struct {
	Workers []int    `json:"workers"`
	Designs []string `json:"designs"`
	Runs    int      `json:"runs"`
	// ProcsUpTo: at W up to this, the scale cells run also with one
	// process per worker (0: in-process only).
	ProcsUpTo int `json:"procs_up_to"`
	// JobsPerW 1 ms sleeping jobs a worker in the throughput cells.
	JobsPerW int `json:"jobs_per_worker"`
	// Settle, then Window: how long idle workers run before, and while,
	// the server's messages are counted.
	Settle time.Duration `json:"settle_ns"`
	Window time.Duration `json:"window_ns"`
}

const us20 = 20 * time.Microsecond

// cmpWorkloads are the comparison's workloads. big: the spawn-heavy trees
// at 131,068 jobs (4 roots, each a binary tree of depth 14); otherwise at
// 4,092 (depth 9), which today's cluster package gets through within a
// trial's bound at W = 16 processes.
func cmpWorkloads(big bool) []workload {
	d := 9
	if big {
		d = 14
	}
	four := []int{d, d, d, d}
	return []workload{
		{Name: "tree-spawn", Kind: kindTree, Fanout: 2, Roots: four},
		{Name: "tree-spawn-20us", Kind: kindTree, Fanout: 2, Roots: four, Job: us20, CPU: true},
		{Name: "fanout-sleep", Kind: kindTree, Fanout: 1000, Roots: []int{1}, Job: ms1},
		{Name: "uneven-roots", Kind: kindTree, Fanout: 2, Roots: []int{9, 7, 5, 3, 1, 1, 1, 1}, Job: ms1, Spread: true},
		{Name: "flat-noop", Kind: kindThroughput, Jobs: 1000},
		{Name: "flat-sleep", Kind: kindThroughput, Job: ms1, Jobs: 1000},
		{Name: "flat-noop-batch", Kind: kindThroughput, Jobs: 1000, Bundle: 100},
		{Name: "flat-sleep-batch", Kind: kindThroughput, Job: ms1, Jobs: 1000, Bundle: 100},
		{Name: "skew-sleep", Kind: kindSkew, Job: ms1, Jobs: 500},
	}
}

// defaultCmpDesigns: every design but steal-one, which the full sweep
// (without -compare) still runs; -designs adds it.
func defaultCmpDesigns(fetchK int) []string {
	return []string{"steal", "steal-mem", "steal-bundle", "no-steal", "central-f1", fmt.Sprintf("central-f%d", fetchK), "central-async", "central-local"}
}

func fullCmpConfig() cmpConfig {
	return cmpConfig{
		Runs: 5, FetchK: 16, Workers: []int{16}, Modes: []string{modeProcesses},
		Designs: defaultCmpDesigns(16), Workloads: cmpWorkloads(false),
		Scale: scaleConfig{Workers: []int{16, 64, 256}, Designs: []string{"steal", "no-steal", "central-f1", "central-f16", "central-async"},
			Runs: 3, JobsPerW: 20, Settle: time.Second, Window: 2 * time.Second},
		LatencyWorkers: []int{16},
		Latency:        workload{Name: "skew-1ms", Kind: kindSkew, Job: ms1, Jobs: 500},
		SimWorkers:     []int{2, 4, 8, 16, 32, 64, 128, 256, 512, 1000},
	}
}

// quickCmpConfig runs every part small, in seconds.
func quickCmpConfig() cmpConfig {
	return cmpConfig{
		Runs: 1, FetchK: 4, Workers: []int{2}, Modes: []string{modeInProcess},
		Designs: defaultCmpDesigns(4),
		Workloads: []workload{
			{Name: "tree-spawn", Kind: kindTree, Fanout: 2, Roots: []int{3, 3}},
			{Name: "fanout-sleep", Kind: kindTree, Fanout: 20, Roots: []int{1}, Job: ms1},
			{Name: "uneven-roots", Kind: kindTree, Fanout: 2, Roots: []int{3, 1, 0}, Job: ms1, Spread: true},
			{Name: "flat-noop", Kind: kindThroughput, Jobs: 20},
			{Name: "flat-noop-batch", Kind: kindThroughput, Jobs: 20, Bundle: 10},
			{Name: "skew-sleep", Kind: kindSkew, Job: ms1, Jobs: 20},
		},
		Scale: scaleConfig{Workers: []int{2, 4}, Designs: []string{"steal", "central-f1", "central-f4"},
			Runs: 1, JobsPerW: 5, Settle: 50 * time.Millisecond, Window: 100 * time.Millisecond},
		LatencyWorkers: []int{2},
		Latency:        workload{Name: "skew-1ms", Kind: kindSkew, Job: ms1, Jobs: 20},
		SimWorkers:     []int{2, 8},
	}
}

// pickDesigns returns the designs named, in the order of compareDesigns,
// each in every mode of modes (in-process first); an unknown name is an
// error.
func pickDesigns(names, modes []string, fetchK int) ([]design, error) {
	all := compareDesigns(fetchK)
	for _, n := range names {
		if !slices.ContainsFunc(all, func(d design) bool { return d.Name == n }) {
			return nil, fmt.Errorf("no design %q", n)
		}
	}
	var out []design
	for _, d := range all {
		if !slices.Contains(names, d.Name) {
			continue
		}
		if slices.Contains(modes, modeInProcess) {
			out = append(out, d)
		}
		if slices.Contains(modes, modeProcesses) {
			out = append(out, procDesign(d, fetchK))
		}
	}
	return out, nil
}

// cmpReport is the JSON -compare writes.
type cmpReport struct {
	Command     string        `json:"command"`
	Date        string        `json:"date"`
	Machine     string        `json:"machine"`
	Go          string        `json:"go"`
	WallS       float64       `json:"wall_s"`
	Config      cmpConfig     `json:"config"`
	Cells       []*cell       `json:"results"`
	Idle        []*idleCell   `json:"idle"`
	ScaleCells  []*cell       `json:"scale_results"`
	Latency     []*latencyRow `json:"steal_latency"`
	Calibration []simModel    `json:"calibration"`
	Sim         []simPoint    `json:"simulated"`
}

// measureCompare runs every part of cfg.
func measureCompare(cfg cmpConfig, log io.Writer) (*cmpReport, error) {
	t0 := time.Now()
	r := &cmpReport{Date: t0.UTC().Format("2006-01-02"), Machine: machine(), Go: runtime.Version(), Config: cfg}
	ds, err := pickDesigns(cfg.Designs, cfg.Modes, cfg.FetchK)
	if err != nil {
		return nil, err
	}
	if r.Cells, err = runCells(cfg.Workloads, cfg.Workers, ds, cfg.Runs, true, log); err != nil {
		return nil, err
	}
	skip := skipper{} // designs that failed at a W of the scale cells: not run again there or beyond
	if r.Idle, err = idleTraffic(cfg, skip, log); err != nil {
		return nil, err
	}
	if r.ScaleCells, err = scaleSleep(cfg, skip, log); err != nil {
		return nil, err
	}
	lat := config{Runs: cfg.Scale.Runs, FetchK: cfg.FetchK, LatencyWorkers: cfg.LatencyWorkers, Latency: cfg.Latency}
	if r.Latency, err = latencies(lat, log); err != nil {
		return nil, err
	}
	r.Calibration = calibrateCompare(cfg, r)
	r.Sim = simulateModels(cfg.SimWorkers, r.Calibration)
	r.WallS = time.Since(t0).Seconds()
	return r, nil
}

// scaleSleep runs 1 ms sleeping jobs, JobsPerW a worker, submitted one at
// a time by the submitters, at each W of cfg.Scale, in-process (and in
// processes up to ProcsUpTo), the designs interleaved in each run. A
// design whose trial fails (or whose idle workers failed) at a W is not
// run again at that W or beyond: its cells there show that it did not
// finish.
func scaleSleep(cfg cmpConfig, skip skipper, log io.Writer) ([]*cell, error) {
	var out []*cell
	for _, w := range cfg.Scale.Workers {
		ds, err := pickDesigns(cfg.Scale.Designs, scaleModesAt(cfg, w), cfg.FetchK)
		if err != nil {
			return nil, err
		}
		wl := scaleWorkload(cfg.Scale, w)
		cells := make([]*cell, len(ds))
		for i, d := range ds {
			cells[i] = &cell{Workload: wl.Name, Kind: wl.Kind, W: w, Design: d.Name, Mode: d.Mode, Jobs: wl.total()}
		}
		for run := range cfg.Scale.Runs {
			for i, d := range ds {
				if skip.skips(d, w) {
					cells[i].Failed++
					continue
				}
				r, err := runTrial(d, wl, w, false)
				if err != nil {
					cells[i].Failed++
					skip.failed(d, w)
					fmt.Fprintf(log, "%-16s W=%-3d run %d %-13s %-10s failed: %v\n", wl.Name, w, run+1, d.Name, d.Mode, err)
					continue
				}
				cells[i].add(r)
				fmt.Fprintf(log, "%-16s W=%-3d run %d %-13s %-10s %8.1f ms %7.1f µs CPU/job\n", wl.Name, w, run+1, d.Name, d.Mode, ms(r.Elapsed), us(r.CPU)/float64(wl.total()))
			}
		}
		for _, c := range cells {
			c.finish(wl)
		}
		out = append(out, cells...)
	}
	return out, nil
}

// skipper holds, for each design and mode, the smallest W of the scale
// cells at which it failed.
type skipper map[string]int

func (s skipper) failed(d design, w int) {
	k := d.Name + " " + d.Mode
	if f, ok := s[k]; !ok || w < f {
		s[k] = w
	}
}

// skips reports whether d failed at w or a smaller W.
func (s skipper) skips(d design, w int) bool {
	f, ok := s[d.Name+" "+d.Mode]
	return ok && w >= f
}

// scaleModesAt lists the modes of the scale cells at W.
func scaleModesAt(cfg cmpConfig, w int) []string {
	if w <= cfg.Scale.ProcsUpTo {
		return []string{modeInProcess, modeProcesses}
	}
	return []string{modeInProcess}
}

// scaleLimit bounds each trial of the scale cells, idle ones included.
const scaleLimit = time.Minute

const scaleName = "scale-sleep"

func scaleWorkload(sc scaleConfig, w int) workload {
	return workload{Name: scaleName, Kind: kindThroughput, Job: ms1, Jobs: sc.JobsPerW * w, Limit: scaleLimit}
}

// idleCell: W idle workers of one design, nothing submitted: what the
// server handles and what the processes spend, per second.
type idleCell struct {
	Design     string    `json:"design"`
	Mode       string    `json:"mode"`
	W          int       `json:"workers"`
	MsgsPerS   float64   `json:"server_msgs_per_s"`
	CPUPerS    float64   `json:"cpu_s_per_s"`
	StartS     float64   `json:"start_s"` // time to start the W workers
	Runs       []float64 `json:"runs_msgs_per_s"`
	cpu, start []float64
	Failed     int `json:"failed_runs,omitempty"`
}

// idleTraffic measures each scale design's idle workers at each W.
// A design that fails at a W is not run again there or beyond (skip).
func idleTraffic(cfg cmpConfig, skip skipper, log io.Writer) ([]*idleCell, error) {
	var out []*idleCell
	for _, w := range cfg.Scale.Workers {
		ds, err := pickDesigns(cfg.Scale.Designs, scaleModesAt(cfg, w), cfg.FetchK)
		if err != nil {
			return nil, err
		}
		cells := make([]*idleCell, len(ds))
		for i, d := range ds {
			cells[i] = &idleCell{Design: d.Name, Mode: d.Mode, W: w}
		}
		for run := range cfg.Scale.Runs {
			for i, d := range ds {
				c := cells[i]
				if skip.skips(d, w) {
					c.Failed++
					continue
				}
				msgs, cpu, start, err := idleTrial(d, scaleWorkload(cfg.Scale, w), w, cfg.Scale)
				if err != nil {
					c.Failed++
					skip.failed(d, w)
					fmt.Fprintf(log, "idle %-13s %-10s W=%-3d run %d failed: %v\n", d.Name, d.Mode, w, run+1, err)
					continue
				}
				c.Runs = append(c.Runs, msgs)
				c.cpu, c.start = append(c.cpu, cpu), append(c.start, start)
				fmt.Fprintf(log, "idle %-13s %-10s W=%-3d run %d %9.0f msgs/s %5.2f CPU-s/s (started in %.1f s)\n", d.Name, d.Mode, w, run+1, msgs, cpu, start)
			}
		}
		for _, c := range cells {
			c.MsgsPerS, c.CPUPerS, c.StartS = median(c.Runs), median(c.cpu), median(c.start)
		}
		out = append(out, cells...)
	}
	return out, nil
}

// idleTrial starts w workers of d on a fresh server, lets them settle,
// then counts the server's messages and the processes' CPU over the
// window, with nothing submitted.
func idleTrial(d design, wl workload, w int, sc scaleConfig) (msgsPerS, cpuPerS, startS float64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), trialLimit(wl))
	defer cancel()
	e, err := natsserver.Start()
	if err != nil {
		return 0, 0, 0, err
	}
	defer e.Shutdown()
	gate := make(chan struct{})
	defer close(gate)
	sys, err := d.make(e, wl, gate)
	if err != nil {
		return 0, 0, 0, err
	}
	defer sys.close()
	t0 := time.Now()
	if err := sys.start(ctx, 0, w); err != nil {
		return 0, 0, 0, err
	}
	startS = time.Since(t0).Seconds()
	if !sleepCtx(ctx, sc.Settle) {
		return 0, 0, 0, ctx.Err()
	}
	m0, c0, t1 := serverMsgs(e), cpuNow(sys), time.Now()
	if !sleepCtx(ctx, sc.Window) {
		return 0, 0, 0, ctx.Err()
	}
	el := time.Since(t1).Seconds()
	return float64(serverMsgs(e)-m0) / el, (cpuNow(sys) - c0).Seconds() / el, startS, nil
}

// sleepCtx sleeps d and reports whether ctx is still live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

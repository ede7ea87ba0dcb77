package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The comparison's markdown goes between these markers of its -md file,
// apart from the full sweep's.
const (
	cmpBeginMark = "<!-- clusterbench-compare:begin -->\n"
	cmpEndMark   = "<!-- clusterbench-compare:end -->"
)

// baseline is the design every ratio of the comparison is against.
func (cfg cmpConfig) baseline() string { return fmt.Sprintf("central-f%d", cfg.FetchK) }

// cmpMarkdown writes the comparison's tables.
func cmpMarkdown(w io.Writer, r *cmpReport) {
	cfg := r.Config
	fk := cfg.baseline()
	fmt.Fprintf(w, "Produced by `%s` on %s, %s, %s, in %.1f minutes. Medians of %d runs; in each run every design ran once, in turn. Workers: %s.\n\n",
		r.Command, r.Date, r.Machine, r.Go, r.WallS/60, cfg.Runs, strings.Join(cfg.Modes, " and "))
	fmt.Fprintf(w, "Columns: jobs/s (the jobs over the median time); × %s: the same ratio against %s in the same run, cell by cell (above 1: faster, or for messages and CPU, dearer); msgs/job: server messages in + out per job, from the start of loading, once the workers started first have settled (the server about as quiet as with idle workers); CPU µs/job: CPU time of every process of the trial (server, submitter and workers) while the clock ran, per job; makespan / lower bound for jobs that take time (1 is perfect).\n\n", fk, fk)
	for _, wl := range cfg.Workloads {
		for _, n := range cfg.Workers {
			for _, mode := range cfg.Modes {
				cmpTable(w, r, wl, n, mode)
			}
		}
	}
	summaryTable(w, r)
	cpuSplitTable(w, r)
	if len(cfg.Scale.Workers) == 0 {
		return // -scale-workers none: no idle or scaling cells, nothing calibrated from them
	}
	idleTable(w, r)
	scaleTable(w, r)
	cmpLatencyTable(w, r)
	modelTable(w, r)
}

func cmpTable(w io.Writer, r *cmpReport, wl workload, n int, mode string) {
	fk := r.Config.baseline()
	base := findIn(r.Cells, mode, wl.Name, fk, n)
	fmt.Fprintf(w, "**%s**, W = %d, %s: %s\n\n", wl.Name, n, mode, describe(wl))
	cols := []string{"design", "jobs/s", "× " + fk, "msgs/job", "× " + fk, "CPU µs/job", "× " + fk}
	if wl.Job > 0 {
		cols = append(cols, "makespan / lower bound")
	}
	if wl.Kind == kindSkew {
		cols = append(cols, "jobs stolen (of which before the clock)")
	} else {
		cols = append(cols, "jobs stolen")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, d := range r.Config.Designs {
		c := findIn(r.Cells, mode, wl.Name, d, n)
		if c == nil {
			continue
		}
		if c.MedianMS == 0 {
			fmt.Fprintf(w, "| %s | did not finish in %d of %d runs |\n", d, c.Failed, r.Config.Runs)
			continue
		}
		row := []string{d, fmt.Sprintf("%.0f", c.JobsPerS), ratio(c.JobsPerS, base, func(b *cell) float64 { return b.JobsPerS }),
			fmt.Sprintf("%.1f", c.MsgsPerJob), ratio(c.MsgsPerJob, base, func(b *cell) float64 { return b.MsgsPerJob }),
			fmt.Sprintf("%.0f", c.CPUPerJobUS), ratio(c.CPUPerJobUS, base, func(b *cell) float64 { return b.CPUPerJobUS })}
		if wl.Job > 0 {
			row = append(row, fmt.Sprintf("%.2f (%.0f ms)", c.Ratio, c.MedianMS))
		}
		st := fmt.Sprintf("%.0f", c.Stolen)
		if wl.Kind == kindSkew {
			st += fmt.Sprintf(" (%.0f)", c.PreStolen)
		}
		if c.Late > 0 {
			st += fmt.Sprintf(" (%d submits answered late, all runs)", c.Late)
		}
		if c.Failed > 0 {
			st += fmt.Sprintf(" (%d runs failed)", c.Failed)
		}
		row = append(row, st)
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

// ratio formats x over base's figure, or "–" without a base.
func ratio(x float64, base *cell, f func(*cell) float64) string {
	if base == nil || base.MedianMS == 0 || f(base) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", x/f(base))
}

// summaryTable: every workload's jobs/s ratio against the baseline, one
// row a workload, one column a design.
func summaryTable(w io.Writer, r *cmpReport) {
	fk := r.Config.baseline()
	for _, n := range r.Config.Workers {
		for _, mode := range r.Config.Modes {
			fmt.Fprintf(w, "**Summary**, W = %d, %s: jobs/s of each design / jobs/s of %s in the same run (above 1: faster than %s); CPU per job in brackets, the same way (below 1: cheaper)\n\n", n, mode, fk, fk)
			designTable(w, r, n, mode, func(c, base *cell) string {
				return ratio(c.JobsPerS, base, func(b *cell) float64 { return b.JobsPerS }) +
					" (" + ratio(c.CPUPerJobUS, base, func(b *cell) float64 { return b.CPUPerJobUS }) + ")"
			})
		}
	}
}

// cpuSplitTable: with worker processes, where each workload's CPU went,
// one row a workload, one column a design: the process that holds the
// server and the submitter against the worker processes, and how often
// the workers' threads were put on a CPU, per job.
func cpuSplitTable(w io.Writer, r *cmpReport) {
	if !slices.ContainsFunc(r.Cells, func(c *cell) bool { return c.KidCPUUS > 0 }) {
		return // in-process only, or a JSON file from before the split
	}
	for _, n := range r.Config.Workers {
		fmt.Fprintf(w, "**Where the CPU goes**, W = %d, processes: CPU µs per job of the process holding the server and the submitter + of the %d worker processes; in brackets, how many times a worker process's thread was put on a CPU (a wake-up, or a return after being preempted; from each thread's `/proc/<pid>/task/<tid>/schedstat`), per job\n\n", n, n)
		designTable(w, r, n, modeProcesses, func(c, _ *cell) string {
			return fmt.Sprintf("%.0f + %.0f (%.1f)", c.SelfCPUUS, c.KidCPUUS, c.KidSlices)
		})
	}
}

// designTable writes one row a workload and one column a design of the
// cells at W = n in mode, each as text makes it from the cell and the
// baseline's cell of its workload (nil without one); "–" for a cell that
// did not run or finish.
func designTable(w io.Writer, r *cmpReport, n int, mode string, text func(c, base *cell) string) {
	fmt.Fprintf(w, "| workload | %s |\n|%s\n", strings.Join(r.Config.Designs, " | "), strings.Repeat("---|", len(r.Config.Designs)+1))
	for _, wl := range r.Config.Workloads {
		base := findIn(r.Cells, mode, wl.Name, r.Config.baseline(), n)
		row := []string{wl.Name}
		for _, d := range r.Config.Designs {
			c := findIn(r.Cells, mode, wl.Name, d, n)
			if c == nil || c.MedianMS == 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, text(c, base))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

// scaleModes lists the modes the scale cells ran.
func scaleModes(r *cmpReport) []string {
	if r.Config.Scale.ProcsUpTo > 0 {
		return []string{modeInProcess, modeProcesses}
	}
	return []string{modeInProcess}
}

func idleTable(w io.Writer, r *cmpReport) {
	sc := r.Config.Scale
	fmt.Fprintf(w, "**Idle workers**: W workers started, nothing submitted; after %v, the server's messages (in + out) per second and the CPU seconds per second of every process of the trial, over %v (median of %d); time to start the W workers in brackets\n\n", sc.Settle, sc.Window, sc.Runs)
	fmt.Fprintf(w, "| W | workers | %s |\n|%s\n", strings.Join(sc.Designs, " | "), strings.Repeat("---|", len(sc.Designs)+2))
	for _, n := range sc.Workers {
		for _, mode := range scaleModes(r) {
			row := []string{fmt.Sprint(n), mode}
			any := false
			for _, d := range sc.Designs {
				i := slices.IndexFunc(r.Idle, func(c *idleCell) bool { return c.Design == d && c.W == n && c.Mode == mode })
				if i < 0 {
					row = append(row, "–")
					continue
				}
				if len(r.Idle[i].Runs) == 0 {
					row = append(row, fmt.Sprintf("did not start within %.0f s", scaleLimit.Seconds()))
					any = true
					continue
				}
				any = true
				c := r.Idle[i]
				row = append(row, fmt.Sprintf("%.0f msgs/s, %.2f CPU-s/s (%.1f s)", c.MsgsPerS, c.CPUPerS, c.StartS))
			}
			if any {
				fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			}
		}
	}
	fmt.Fprintln(w)
}

func scaleTable(w io.Writer, r *cmpReport) {
	sc := r.Config.Scale
	fmt.Fprintf(w, "**Sleeping jobs against W**: %d jobs a worker sleeping 1 ms, submitted one at a time by %d goroutines; jobs/s (median of %d), server messages per job and CPU µs per job in brackets\n\n", sc.JobsPerW, submitters, sc.Runs)
	fmt.Fprintf(w, "| W | workers | %s |\n|%s\n", strings.Join(sc.Designs, " | "), strings.Repeat("---|", len(sc.Designs)+2))
	for _, n := range sc.Workers {
		for _, mode := range scaleModes(r) {
			row := []string{fmt.Sprint(n), mode}
			any := false
			for _, d := range sc.Designs {
				c := findIn(r.ScaleCells, mode, scaleName, d, n)
				switch {
				case c == nil:
					row = append(row, "–")
				case c.MedianMS == 0:
					row = append(row, fmt.Sprintf("did not start or finish within %.0f s, here or at a smaller W", scaleLimit.Seconds()))
					any = true
				default:
					s := fmt.Sprintf("%.0f (%.1f, %.0f µs)", c.JobsPerS, c.MsgsPerJob, c.CPUPerJobUS)
					if c.Failed > 0 {
						s += fmt.Sprintf(", %d runs failed", c.Failed)
					}
					row = append(row, s)
					any = true
				}
			}
			if any {
				fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			}
		}
	}
	fmt.Fprintln(w)
}

func cmpLatencyTable(w io.Writer, r *cmpReport) {
	fmt.Fprintf(w, "**Steal latency under load** (%s, in-process, observed; calibrates the simulator's steal)\n\n", describe(r.Config.Latency))
	fmt.Fprintln(w, "| design | W | steals | jobs per steal | empty answers | p50 | p99 |\n|---|---|---|---|---|---|---|")
	for _, l := range r.Latency {
		fmt.Fprintf(w, "| %s | %d | %d | %.1f | %d | %.0f µs | %.0f µs |\n", l.Design, l.W, l.Steals, l.Moved, l.Empty, l.P50US, l.P99US)
	}
	fmt.Fprintln(w)
}

func modelTable(w io.Writer, r *cmpReport) {
	fmt.Fprintf(w, "**Simulator, calibrated from this run** (package sim; 1 ms jobs, %d a worker): simulated jobs/s against W; \"knee\" is the first W simulated below 80 %% of the ideal W jobs/ms\n\n", simJobsPerW)
	fmt.Fprintln(w, "| model | policy | service / job | latency | most jobs/s | knee | calibrated from |\n|---|---|---|---|---|---|---|")
	for _, m := range r.Calibration {
		svc, sat, knee := "none", "–", "none ≤ 1000"
		if m.ServiceUS > 0 {
			svc, sat = fmt.Sprintf("%.1f µs", m.ServiceUS), fmt.Sprintf("%.0f", m.Saturation)
		}
		if m.KneeW > 0 {
			knee = fmt.Sprintf("W = %d", m.KneeW)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.0f µs | %s | %s | %s |\n", m.Name, m.Policy, svc, m.LatencyUS, sat, knee, m.From)
	}
	fmt.Fprintln(w)
	names := make([]string, len(r.Calibration))
	for i, m := range r.Calibration {
		names[i] = m.Name
	}
	fmt.Fprintf(w, "| W | %s |\n|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)+1))
	for _, n := range r.Config.SimWorkers {
		row := []string{fmt.Sprint(n)}
		for _, m := range names {
			row = append(row, fmt.Sprintf("%.0f", simAt(r.Sim, m, n)))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

// cmpChart is the chart of the comparison: the scale cells' jobs/s
// against W for every design (measured, each mode), and each model's
// simulated curve, for `charts scaling` (SVG) or the pngchart module
// (PNG).
func cmpChart(r *cmpReport) chartDoc {
	doc := chartDoc{
		Title: "1 ms sleeping jobs: jobs/s against workers, measured and simulated",
		X:     "workers (log scale)", Y: "jobs/s (log scale)",
	}
	for _, mode := range scaleModes(r) {
		for _, d := range r.Config.Scale.Designs {
			s := chartSeries{Name: d + " measured", Style: "measured"}
			if mode == modeProcesses {
				s.Name = d + " measured, processes"
			}
			for _, c := range r.ScaleCells {
				if c.Design == d && c.Mode == mode && c.JobsPerS > 0 {
					s.Points = append(s.Points, [2]float64{float64(c.W), c.JobsPerS})
				}
			}
			if len(s.Points) > 0 {
				doc.Series = append(doc.Series, s)
			}
		}
	}
	var gone []string // designs without a measured point at the largest W
	if n := len(r.Config.Scale.Workers); n > 0 {
		top := r.Config.Scale.Workers[n-1]
		for _, d := range r.Config.Scale.Designs {
			if c := findIn(r.ScaleCells, modeInProcess, scaleName, d, top); c != nil && c.MedianMS == 0 {
				gone = append(gone, d)
			}
		}
		if len(gone) > 0 {
			doc.Title += fmt.Sprintf(" (%s: none at W = %d, not started within %.0f s)", strings.Join(gone, ", "), top, scaleLimit.Seconds())
		}
	}
	for _, m := range r.Calibration {
		s := chartSeries{Name: m.Design + " simulated (" + strings.TrimPrefix(m.Name, m.Design+", ") + ")", Style: "simulated"}
		for _, p := range r.Sim {
			if p.Design == m.Name && p.JobsPerS > 0 {
				s.Points = append(s.Points, [2]float64{float64(p.W), p.JobsPerS})
			}
		}
		if len(s.Points) > 0 {
			doc.Series = append(doc.Series, s)
		}
	}
	return doc
}

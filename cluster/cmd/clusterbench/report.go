package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// report is the JSON the harness writes.
type report struct {
	Command     string         `json:"command"`
	Date        string         `json:"date"`
	Machine     string         `json:"machine"`
	Go          string         `json:"go"`
	Config      config         `json:"config"`
	Cells       []*cell        `json:"results"`
	Latency     []*latencyRow  `json:"steal_latency"`
	Probe       []*probeRow    `json:"steal_probe"`
	Recovery    []*recoveryRow `json:"recovery"`
	Calibration calibration    `json:"calibration"`
	Sim         []simPoint     `json:"simulated"`
}

// machine names the machine from /proc (Linux), or says how many CPUs.
func machine() string {
	model, mem := "", ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("%d CPUs (GOMAXPROCS %d) %s%s, %s/%s", runtime.NumCPU(), runtime.GOMAXPROCS(0), model, mem, runtime.GOOS, runtime.GOARCH)
}

// markdown writes the tables.
func markdown(w io.Writer, r *report) {
	fmt.Fprintf(w, "Produced by `%s` on %s, %s, %s. Medians of %d runs; in each run every design ran once, in turn",
		r.Command, r.Date, r.Machine, r.Go, r.Config.Runs)
	if r.Config.Procs {
		fmt.Fprint(w, ", with its workers in-process and then with each worker in a process of its own")
	}
	fmt.Fprint(w, ". Column \"workers\": in-process (goroutines of the benchmark, in-process connections) or processes (one process per worker, its own TCP connection).\n\n")
	ds := designs(r.Config.FetchK)
	for _, wl := range r.Config.Workloads {
		if wl.Job > 0 && wl.Kind != kindThroughput {
			ratioTable(w, r, wl, ds)
		} else {
			rateTable(w, r, wl, ds)
		}
	}
	procsTable(w, r, ds)
	msgsTable(w, r, ds)
	probeTable(w, r)
	latencyTable(w, r)
	recoveryTable(w, r)
	simTable(w, r)
}

// modes lists the workers' modes the sweep ran.
func modes(r *report) []string {
	if r.Config.Procs {
		return []string{modeInProcess, modeProcesses}
	}
	return []string{modeInProcess}
}

func header(w io.Writer, first []string, ds []design, extra ...string) {
	cols := append([]string{}, first...)
	for _, d := range ds {
		cols = append(cols, d.Name)
	}
	cols = append(cols, extra...)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
}

func rateTable(w io.Writer, r *report, wl workload, ds []design) {
	fk := ds[len(ds)-1].Name
	fmt.Fprintf(w, "**%s**: %s, jobs/s (higher is better)\n\n", wl.Name, describe(wl))
	header(w, []string{"W", "workers"}, ds, "steal / central-f1", "steal / "+fk)
	for _, n := range r.Config.Workers {
		for _, mode := range modes(r) {
			s, c1, ck := findIn(r.Cells, mode, wl.Name, "steal", n), findIn(r.Cells, mode, wl.Name, "central-f1", n), findIn(r.Cells, mode, wl.Name, fk, n)
			if s == nil {
				continue
			}
			row := []string{fmt.Sprint(n), mode}
			for _, d := range ds {
				row = append(row, fmt.Sprintf("%.0f", findIn(r.Cells, mode, wl.Name, d.Name, n).JobsPerS))
			}
			row = append(row, fmt.Sprintf("%.2f", s.JobsPerS/c1.JobsPerS), fmt.Sprintf("%.2f", s.JobsPerS/ck.JobsPerS))
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(w)
}

func ratioTable(w io.Writer, r *report, wl workload, ds []design) {
	fmt.Fprintf(w, "**%s**: %s; makespan / lower bound (1 is perfect; lower is better), median makespan in brackets\n\n", wl.Name, describe(wl))
	header(w, []string{"W", "workers"}, ds, "lower bound", "jobs stolen (steal)")
	for _, n := range r.Config.Workers {
		for _, mode := range modes(r) {
			s := findIn(r.Cells, mode, wl.Name, "steal", n)
			if s == nil {
				continue
			}
			row := []string{fmt.Sprint(n), mode}
			for _, d := range ds {
				c := findIn(r.Cells, mode, wl.Name, d.Name, n)
				row = append(row, fmt.Sprintf("%.2f (%.0f ms)", c.Ratio, c.MedianMS))
			}
			row = append(row, fmt.Sprintf("%.0f ms", s.LowerBoundMS), fmt.Sprintf("%.0f", s.Stolen))
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(w)
}

// procsTable: for each cell, how much faster its processes ran than its
// in-process workers (the in-process median time over the processes'
// median time; above 1: processes faster). Written only with -procs.
func procsTable(w io.Writer, r *report, ds []design) {
	if !r.Config.Procs {
		return
	}
	fmt.Fprintln(w, "**Processes against in-process workers**: in-process median time / processes median time, from the interleaved runs above (above 1: the processes were faster)")
	fmt.Fprintln(w)
	header(w, []string{"workload", "W"}, ds)
	for _, wl := range r.Config.Workloads {
		for _, n := range r.Config.Workers {
			if findIn(r.Cells, modeProcesses, wl.Name, ds[0].Name, n) == nil {
				continue
			}
			row := []string{wl.Name, fmt.Sprint(n)}
			for _, d := range ds {
				in, pr := findIn(r.Cells, modeInProcess, wl.Name, d.Name, n), findIn(r.Cells, modeProcesses, wl.Name, d.Name, n)
				row = append(row, fmt.Sprintf("%.2f", in.MedianMS/pr.MedianMS))
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(w)
}

func describe(wl workload) string {
	what := "no-op jobs"
	switch {
	case wl.CPU && wl.MaxW > 0:
		what = fmt.Sprintf("jobs spinning %v (CPU-bound, W up to %d)", wl.Job, wl.MaxW)
	case wl.CPU:
		what = fmt.Sprintf("jobs spinning %v (CPU-bound)", wl.Job)
	case wl.Job > 0:
		what = fmt.Sprintf("jobs sleeping %v (I/O-bound)", wl.Job)
	}
	switch wl.Kind {
	case kindSkew:
		return fmt.Sprintf("%d %s, all placed on one worker (central: all in the stream) before the clock starts", wl.Jobs, what)
	case kindTree:
		if len(wl.Roots) == 0 {
			return fmt.Sprintf("a tree of %d %s (fan-out %d, depth %d), the root on one worker; children spawned when a job's work is done", wl.total(), what, wl.Fanout, wl.Depth)
		}
		where := "all on one worker"
		if wl.Spread {
			where = "submitted to any worker"
		}
		return fmt.Sprintf("%d %s in %d tree(s) (fan-out %d, root depths %v), the roots %s; children spawned when a job's work is done", wl.total(), what, len(wl.Roots), wl.Fanout, wl.Roots, where)
	}
	if wl.Bundle > 0 {
		return fmt.Sprintf("%d %s submitted by %d goroutines at once in calls of %d, one SubmitBatch a call (steal-bundle: one SubmitBundle; central: the call's jobs published asynchronously, every ack awaited), clock from the first submission to the last completion", wl.Jobs, what, submitters, wl.Bundle)
	}
	return fmt.Sprintf("%d %s submitted by %d goroutines at once, one Submit (central: one Publish) per job, clock from the first submission to the last completion", wl.Jobs, what, submitters)
}

// msgsTable: what each design costs the server per job, at the smallest
// and largest W.
func msgsTable(w io.Writer, r *report, ds []design) {
	fmt.Fprintln(w, "**Server messages per job** (in + out, counted by the server from the first submission to the last completion; median)")
	fmt.Fprintln(w)
	header(w, []string{"workload, W", "workers"}, ds)
	ws := r.Config.Workers
	for _, wl := range r.Config.Workloads {
		for _, n := range []int{ws[0], ws[len(ws)-1]} {
			for _, mode := range modes(r) {
				if findIn(r.Cells, mode, wl.Name, ds[0].Name, n) == nil {
					continue
				}
				row := []string{fmt.Sprintf("%s, %d", wl.Name, n), mode}
				for _, d := range ds {
					row = append(row, fmt.Sprintf("%.1f", findIn(r.Cells, mode, wl.Name, d.Name, n).MsgsPerJob))
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			}
		}
	}
	fmt.Fprintln(w)
}

func probeTable(w io.Writer, r *report) {
	fmt.Fprintf(w, "**Steal latency, one steal at a time**: the harness asks one worker holding queued jobs for max jobs, %d runs pooled; request sent to reply received\n\n", r.Config.Runs)
	fmt.Fprintln(w, "| max jobs | steals | jobs per steal | p50 | p99 |\n|---|---|---|---|---|")
	for _, p := range r.Probe {
		fmt.Fprintf(w, "| %d | %d | %.1f | %.0f µs | %.0f µs |\n", p.Max, p.Steals, p.Moved, p.P50US, p.P99US)
	}
	fmt.Fprintln(w)
}

func latencyTable(w io.Writer, r *report) {
	fmt.Fprintf(w, "**Steal latency under load** (%s, observed from outside: request seen to reply seen, every steal that moved jobs, all runs pooled)\n\n", describe(r.Config.Latency))
	fmt.Fprintln(w, "| design | W | steals | jobs per steal | empty answers | p50 | p99 |\n|---|---|---|---|---|---|---|")
	for _, l := range r.Latency {
		fmt.Fprintf(w, "| %s | %d | %d | %.1f | %d | %.0f µs | %.0f µs |\n", l.Design, l.W, l.Steals, l.Moved, l.Empty, l.P50US, l.P99US)
	}
	fmt.Fprintln(w)
}

func recoveryTable(w io.Writer, r *report) {
	fmt.Fprintf(w, "**Recovery** after SIGKILL of a worker process in the middle of a %v job (median of %d)\n\n", recoveryJob, r.Config.RecoveryRuns)
	fmt.Fprintln(w, "| design | how | kill → job held by a survivor | kill → completion recorded |\n|---|---|---|---|")
	for _, x := range r.Recovery {
		fmt.Fprintf(w, "| %s | %s | %.0f ms | %.0f ms |\n", x.Design, x.How, x.MedTakeover, x.MedComplete)
	}
	fmt.Fprintln(w)
}

func simTable(w io.Writer, r *report) {
	c := r.Calibration
	fk := fmt.Sprintf("central-f%d", r.Config.FetchK)
	fmt.Fprintf(w, "**Simulator, calibrated** (package sim, %d jobs of %.0f ms per worker): central-f1 service %.1f µs a job and fetch latency %.1f µs; %s service %.1f µs a job; steal latency %.0f µs, steal-one %.0f µs. Measured: sleep-1ms above, in-process workers. dist's no-op ceiling on this server: %.0f jobs/s (not simulated).\n\n",
		c.JobsPerW, c.JobMS, c.CentralServiceUS, c.CentralLatencyUS, fk, c.CentralKServiceUS, c.StealLatencyUS, c.StealOneLatencyUS, c.DistCeiling)
	names := []string{"steal", "central-f1", fk}
	cols := []string{"W"}
	for _, n := range names {
		cols = append(cols, n+" measured", n+" simulated")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, n := range r.Config.SimWorkers {
		row := []string{fmt.Sprint(n)}
		for _, d := range names {
			m := "–"
			if x := find(r.Cells, "sleep-1ms", d, n); x != nil {
				m = fmt.Sprintf("%.0f", x.JobsPerS)
			}
			row = append(row, m, fmt.Sprintf("%.0f", simAt(r.Sim, d, n)))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(w)
}

func simAt(ps []simPoint, design string, w int) float64 {
	for _, p := range ps {
		if p.Design == design && p.W == w {
			return p.JobsPerS
		}
	}
	return 0
}

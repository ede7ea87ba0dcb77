package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func writeJSON(w io.Writer, r Result) {
	b, _ := json.Marshal(r)
	w.Write(append(b, '\n'))
}

// fmtNs prints a duration with about three significant digits.
func fmtNs(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return sig3(d.Seconds()) + "s"
	case d >= time.Millisecond:
		return sig3(float64(d)/1e6) + "ms"
	case d >= time.Microsecond:
		return sig3(float64(d)/1e3) + "µs"
	}
	return fmt.Sprintf("%dns", ns)
}

// sig3 prints v (>= 0) with three significant digits, never in e-notation.
func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// extra is the workload's own figure: idle CPU, bytes per queued task, or
// time per task.
func extra(r Result) string {
	switch r.Workload {
	case "idle":
		return "cpu " + sig3(r.CPUNsPerS/1e6) + "ms/s"
	case "memory":
		return fmt.Sprintf("%.0f B/task", r.BytesPerTask)
	}
	if r.Tasks > 0 {
		return sig3(float64(r.MedianNs)/float64(r.Tasks)) + " ns/task"
	}
	return ""
}

func summary(r Result) string {
	if !r.OK {
		return "FAILED: " + r.Error
	}
	return fmt.Sprintf("median %s  (min %s, max %s)  %s", fmtNs(r.MedianNs), fmtNs(r.MinNs), fmtNs(r.MaxNs), extra(r))
}

// baseline finds the goroutines result of r's workload.
func baseline(results []Result, workload string) (Result, bool) {
	for _, b := range results {
		if b.Workload == workload && b.Impl == "goroutines" && b.OK {
			return b, true
		}
	}
	return Result{}, false
}

// ratio is r's median over the goroutines median (idle and memory: their
// own figure), or "" when either is missing.
func ratio(results []Result, r Result) (float64, bool) {
	b, ok := baseline(results, r.Workload)
	if !ok || !r.OK {
		return 0, false
	}
	num, den := float64(r.MedianNs), float64(b.MedianNs)
	switch r.Workload {
	case "idle":
		num, den = r.CPUNsPerS, b.CPUNsPerS
	case "memory":
		num, den = r.BytesPerTask, b.BytesPerTask
	}
	if den <= 0 {
		return 0, false
	}
	return num / den, true
}

func printTable(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\timpl\tparam\tmedian\tmin\tmax\tvs goroutines\tallocs/op\tB/op\t\tstatus\t")
	for _, r := range results {
		if !r.OK {
			fmt.Fprintf(tw, "%s\t%s\t%d\t-\t-\t-\t-\t-\t-\t\tFAILED: %s\t\n", r.Workload, r.Impl, r.Param, r.Error)
			continue
		}
		rs := "-"
		if x, ok := ratio(results, r); ok {
			rs = fmt.Sprintf("%.2fx", x)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%s\tok\t\n", r.Workload, r.Impl, r.Param,
			fmtNs(r.MedianNs), fmtNs(r.MinNs), fmtNs(r.MaxNs), rs, r.AllocsPerOp, r.BytesPerOp, extra(r))
	}
	tw.Flush()
}

// runBrief runs the specs like runAll and prints one line per workload
// when its last round is done.
func runBrief(w io.Writer, specs []Spec) []Result {
	return interleave(specs, runChild, func(rs []Result) {
		fmt.Fprintln(w, briefLine(rs[0].Workload, rs))
	})
}

// briefLine sums up one workload's results: the implementations that
// passed, those whose timeout is the expected deadlock, and every other
// outcome with its error.
func briefLine(workload string, results []Result) string {
	var deadlocks []string
	if wl := lookupWorkload(workload); wl != nil {
		deadlocks = wl.Deadlocks
	}
	var ok, expected, other []string
	for _, r := range results {
		switch {
		case r.OK:
			ok = append(ok, r.Impl)
		case r.Error == errTimeout.Error() && slices.Contains(deadlocks, r.Impl):
			expected = append(expected, r.Impl)
		default:
			other = append(other, fmt.Sprintf("%s FAILED: %s", r.Impl, r.Error))
		}
	}
	parts := []string{"ok: " + strings.Join(ok, " ")}
	if len(ok) == 0 {
		parts[0] = "ok: none"
	}
	if len(expected) > 0 {
		parts = append(parts, "timed out as expected (deadlock by design): "+strings.Join(expected, " "))
	}
	parts = append(parts, other...)
	return fmt.Sprintf("%-12s %s", workload, strings.Join(parts, "; "))
}

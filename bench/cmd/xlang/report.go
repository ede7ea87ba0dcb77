package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/worksteal/steal/bench/internal/stats"
)

// cell is everything measured for one (kernel, implementation): a sample
// per process that succeeded, and what went wrong in the others.
type cell struct {
	Kernel  string   `json:"kernel"`
	Impl    string   `json:"impl"`
	Lang    string   `json:"lang"`
	Samples []int64  `json:"samples_ns"`
	Errors  []string `json:"errors,omitempty"`
}

// results are the cells of a run, in the order they were first measured.
type results []*cell

func (rs *results) get(k string, im impl) *cell {
	for _, c := range *rs {
		if c.Kernel == k && c.Impl == im.Name {
			return c
		}
	}
	c := &cell{Kernel: k, Impl: im.Name, Lang: im.Lang}
	*rs = append(*rs, c)
	return c
}

func (rs results) find(k, name string) (*cell, bool) {
	for _, c := range rs {
		if c.Kernel == k && c.Impl == name {
			return c, true
		}
	}
	return nil, false
}

// failed reports whether any process failed.
func (rs results) failed() bool {
	return slices.ContainsFunc(rs, func(c *cell) bool { return len(c.Errors) > 0 })
}

// table is the markdown table of kernel k: a row per implementation with
// its median, range, ratio to the reference and time per call or node.
func (rs results) table(k kernel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| implementation | language | median | range (min–max) | × %s | per %s |\n", reference, k.Unit)
	b.WriteString("|---|---|---:|---:|---:|---:|\n")
	ref, hasRef := rs.find(k.Name, reference)
	for _, im := range impls {
		c, ok := rs.find(k.Name, im.Name)
		if !ok {
			continue
		}
		name := "`" + im.Name + "`"
		if strings.HasPrefix(im.Name, "steal") {
			name = "**" + name + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, im.Lang, strings.Join(rs.figures(c, k, ref, hasRef), " | "))
	}
	return b.String()
}

// figures are a cell's median, range, ratio and time per unit.
func (rs results) figures(c *cell, k kernel, ref *cell, hasRef bool) []string {
	if len(c.Samples) == 0 {
		return []string{"**failed**", "", "", oneError(c)}
	}
	med := stats.Median(c.Samples)
	span := fmtNs(slices.Min(c.Samples)) + "–" + fmtNs(slices.Max(c.Samples))
	if len(c.Errors) > 0 {
		span += fmt.Sprintf(" (%d failed: %s)", len(c.Errors), oneError(c))
	}
	ratio := "—"
	if hasRef && len(ref.Samples) > 0 {
		ratio = fmt.Sprintf("%.2f×", float64(med)/float64(stats.Median(ref.Samples)))
	}
	return []string{fmtNs(med), span, ratio, fmtPer(float64(med) / float64(k.Units))}
}

// ratioSpan is the range of median(a)/median(b) over every kernel in
// kernels and implementation a in as (all comma-separated), as "1.9–4.0×",
// for the prose of the document: hand-written ratios go stale at the next
// run. Pairs with a missing or failed side are left out; with none left it
// is "—".
func (rs results) ratioSpan(as, b, kernels string) string {
	var lo, hi float64
	n := 0
	for _, k := range strings.Split(kernels, ",") {
		den, ok := rs.find(k, b)
		if !ok || len(den.Samples) == 0 {
			continue
		}
		for _, a := range strings.Split(as, ",") {
			num, ok := rs.find(k, a)
			if !ok || len(num.Samples) == 0 {
				continue
			}
			r := float64(stats.Median(num.Samples)) / float64(stats.Median(den.Samples))
			if n == 0 || r < lo {
				lo = r
			}
			if n == 0 || r > hi {
				hi = r
			}
			n++
		}
	}
	switch {
	case n == 0:
		return "—"
	case fmt.Sprintf("%.1f", lo) == fmt.Sprintf("%.1f", hi):
		return fmt.Sprintf("%.1f×", lo)
	}
	return fmt.Sprintf("%.1f–%.1f×", lo, hi)
}

func oneError(c *cell) string {
	if len(c.Errors) == 0 {
		return ""
	}
	return strings.ReplaceAll(firstLine(c.Errors[0]), "|", "/")
}

// fmtNs prints a duration with three significant digits.
func fmtNs(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return sig3(d.Seconds()) + " s"
	case d >= time.Millisecond:
		return sig3(float64(d)/1e6) + " ms"
	case d >= time.Microsecond:
		return sig3(float64(d)/1e3) + " µs"
	}
	return fmt.Sprintf("%d ns", ns)
}

// fmtPer prints a time per call or node in ns.
func fmtPer(ns float64) string { return sig3(ns) + " ns" }

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

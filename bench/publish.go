package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/template"
	"time"
)

//go:embed publish.md.tmpl
var publishTemplate string

// Machine describes where the figures were taken.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	OS         string `json:"os"`
	Date       string `json:"date"`
	Peers      string `json:"peers"`
}

// Published is docs/benchmarks.json.
type Published struct {
	Machine Machine  `json:"machine"`
	Command string   `json:"command"`
	Runs    int      `json:"runs"`
	Results []Result `json:"results"`
}

func publish(o options) error {
	var names []string
	for _, w := range workloads {
		names = append(names, w.Name)
	}
	o.param, o.impls = "", nil
	specs, err := plan(names, o)
	if err != nil {
		return err
	}
	results := runAll(specs, false)
	printTable(os.Stdout, results)
	pub := published(o, results)
	if err := os.MkdirAll(o.docs, 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(pub, "", "  ")
	if err := os.WriteFile(filepath.Join(o.docs, "benchmarks.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := render(pub, o.docs); err != nil {
		return err
	}
	if bad := failures(results); len(bad) > 0 {
		return fmt.Errorf("published, but: %s", strings.Join(bad, "; "))
	}
	return nil
}

// published is what -publish writes about its run. The document quotes
// its command as the way to regenerate it and says each figure is a median
// of Runs rounds, so both are this run's: a run with other -runs or
// -timeout must not be published as the usual command's.
func published(o options, results []Result) Published {
	cmd := fmt.Sprintf("cd bench && go run . -publish -runs %d", o.runs)
	if o.timeout > 0 {
		cmd += " -timeout " + o.timeout.String()
	}
	return Published{Machine: machine(), Command: cmd, Runs: o.runs, Results: results}
}

// rerender rewrites the markdown and charts from docs/benchmarks.json,
// without measuring again: for edits to the template or the charts.
func rerender(docs string) error {
	b, err := os.ReadFile(filepath.Join(docs, "benchmarks.json"))
	if err != nil {
		return err
	}
	var pub Published
	if err := json.Unmarshal(b, &pub); err != nil {
		return err
	}
	return render(pub, docs)
}

func render(pub Published, docs string) error {
	results := pub.Results
	if err := timeChart(results, filepath.Join(docs, "benchmarks-time.svg")); err != nil {
		return err
	}
	if err := ratioChart(results, filepath.Join(docs, "benchmarks-ratio.svg")); err != nil {
		return err
	}
	md, err := renderMarkdown(pub)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(docs, "benchmarks.md"), []byte(md), 0o644)
}

func machine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Date: time.Now().UTC().Format("2006-01-02")}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		var peers []string
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/panjf2000/ants/v2", "github.com/alitto/pond/v2", "github.com/sourcegraph/conc", "golang.org/x/sync":
				peers = append(peers, d.Path+" "+d.Version)
			}
		}
		m.Peers = strings.Join(peers, ", ")
	}
	return m
}

// figure is what a workload is judged by: wall time, idle CPU per second,
// or bytes per queued task.
func figure(r Result) float64 {
	switch r.Workload {
	case "idle":
		return r.CPUNsPerS
	case "memory":
		return r.BytesPerTask
	}
	return float64(r.MedianNs)
}

func fmtFigure(r Result) string {
	switch r.Workload {
	case "idle":
		return fmt.Sprintf("%.2f ms/s", r.CPUNsPerS/1e6)
	case "memory":
		return fmt.Sprintf("%.0f B", r.BytesPerTask)
	}
	return fmtMs(r.MedianNs)
}

func fmtMs(ns int64) string {
	ms := float64(ns) / 1e6
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

func find(results []Result, workload, impl string) (Result, bool) {
	for _, r := range results {
		if r.Workload == workload && r.Impl == impl {
			return r, true
		}
	}
	return Result{}, false
}

// implsIn lists the implementations that appear in results, in implOrder.
func implsIn(results []Result) []string {
	var out []string
	for _, n := range implOrder {
		if slices.ContainsFunc(results, func(r Result) bool { return r.Impl == n }) {
			out = append(out, n)
		}
	}
	return out
}

func workloadsIn(results []Result) []string {
	var out []string
	for _, r := range results {
		if !slices.Contains(out, r.Workload) {
			out = append(out, r.Workload)
		}
	}
	return out
}

// markdownTable is the figures table: a row per workload, a column per
// implementation, each cell the figure and its ratio to goroutines.
func markdownTable(results []Result) string {
	impls := implsIn(results)
	var b strings.Builder
	b.WriteString("| workload | param | unit |")
	for _, im := range impls {
		fmt.Fprintf(&b, " %s |", im)
	}
	b.WriteString("\n|---|---:|---|")
	for range impls {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, wl := range workloadsIn(results) {
		unit := "median time"
		switch wl {
		case "idle":
			unit = "CPU per idle second"
		case "memory":
			unit = "bytes per queued task"
		}
		param := 0
		for _, r := range results {
			if r.Workload == wl {
				param = r.Param
				break
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s |", wl, param, unit)
		for _, im := range impls {
			r, ok := find(results, wl, im)
			switch {
			case !ok:
				b.WriteString(" — |")
			case !r.OK:
				fmt.Fprintf(&b, " **%s** |", r.Error)
			default:
				cell := fmtFigure(r)
				if x, ok := ratio(results, r); ok && im != "goroutines" {
					cell += fmt.Sprintf(" (%.2f×)", x)
				}
				if strings.HasPrefix(im, "steal") {
					cell = "**" + cell + "**"
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// allocTable is allocations per task (allocs_per_op / tasks).
func allocTable(results []Result) string {
	impls := implsIn(results)
	var b strings.Builder
	b.WriteString("| workload |")
	for _, im := range impls {
		fmt.Fprintf(&b, " %s |", im)
	}
	b.WriteString("\n|---|")
	for range impls {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, wl := range workloadsIn(results) {
		if wl == "idle" {
			continue
		}
		fmt.Fprintf(&b, "| %s |", wl)
		for _, im := range impls {
			r, ok := find(results, wl, im)
			if !ok || !r.OK || r.Tasks == 0 {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %.2f |", r.AllocsPerOp/float64(r.Tasks))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// lossThreshold is the margin below which a difference is called noise.
const lossThreshold = 0.05

// verdicts writes, from the data, where steal loses (another impl's figure
// is lower by more than lossThreshold) and where it wins.
func verdicts(results []Result) (losses, wins []string) {
	for _, wl := range workloadsIn(results) {
		s, ok := find(results, wl, "steal")
		if !ok {
			continue
		}
		if !s.OK {
			losses = append(losses, fmt.Sprintf("`steal` failed on **%s**: %s.", wl, s.Error))
			continue
		}
		sf := figure(s)
		var beaten []string
		best := true
		for _, im := range implOrder {
			r, ok := find(results, wl, im)
			if !ok || !r.OK || strings.HasPrefix(im, "steal") {
				continue
			}
			f := figure(r)
			if f < sf*(1-lossThreshold) {
				pct := (sf - f) / sf * 100
				what := "less time"
				switch wl {
				case "idle":
					what = "less idle CPU"
				case "memory":
					what = "fewer bytes per queued task"
				}
				losses = append(losses, fmt.Sprintf("**%s**: `%s` beat `steal` by %.0f%% (%s vs %s, %s).",
					wl, im, pct, fmtFigure(r), fmtFigure(s), what))
				if im != "sequential" {
					best = false
				}
			} else if im != "sequential" && f > sf*(1+lossThreshold) {
				// A zero figure (no idle CPU measured at all) has no
				// ratio: give the other's figure, not "+Inf×".
				if sf > 0 {
					beaten = append(beaten, fmt.Sprintf("%s %.2f×", im, f/sf))
				} else {
					beaten = append(beaten, fmt.Sprintf("%s %s", im, fmtFigure(r)))
				}
			} else if im != "sequential" {
				best = false
			}
		}
		if best && len(beaten) > 0 {
			wins = append(wins, fmt.Sprintf("**%s**: `steal` %s is ahead of every other implementation (%s).", wl, fmtFigure(s), strings.Join(beaten, ", ")))
		} else if len(beaten) > 0 {
			wins = append(wins, fmt.Sprintf("**%s**: `steal` %s is ahead of %s.", wl, fmtFigure(s), strings.Join(beaten, ", ")))
		}
	}
	return losses, wins
}

func renderMarkdown(pub Published) (string, error) {
	losses, wins := verdicts(pub.Results)
	var about []string
	for _, w := range workloads {
		about = append(about, fmt.Sprintf("`%s` (default %d): %s", w.Name, w.Default, w.About))
	}
	// The template calls these deadlocks: list only the timeouts that are
	// deadlocks by design. Any other timeout stays in the table as a
	// failure (and fails -publish), not explained away here.
	var timeouts []string
	for _, r := range pub.Results {
		if expectedTimeout(r) {
			timeouts = append(timeouts, fmt.Sprintf("`%s` on %s", r.Impl, r.Workload))
		}
	}
	data := map[string]any{
		"M": pub.Machine, "Command": pub.Command, "Runs": pub.Runs,
		"Table": markdownTable(pub.Results), "Allocs": allocTable(pub.Results),
		"Losses": losses, "Wins": wins, "About": about, "Timeouts": timeouts,
		"Cutoff": sortCutoff, "IdleBatch": idleBatch,
	}
	t, err := template.New("md").Parse(publishTemplate)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// checkPublish refuses, with -publish, the flags and workloads it would
// otherwise drop without a word: publish runs every workload on every
// implementation at its default size, so -param, -impl or a workload list
// would not narrow the run, and the document would not be what was asked.
func checkPublish(o options, args []string) error {
	var bad []string
	if o.param != "" {
		bad = append(bad, "-param")
	}
	if o.impls != nil {
		bad = append(bad, "-impl")
	}
	if o.json {
		bad = append(bad, "-json")
	}
	if o.brief {
		bad = append(bad, "-brief")
	}
	if len(args) > 0 {
		bad = append(bad, "workloads "+strings.Join(args, " "))
	}
	if len(bad) > 0 {
		return fmt.Errorf("-publish runs everything at default sizes; drop %s", strings.Join(bad, ", "))
	}
	return nil
}

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// cmpFlags are the flags of -compare.
type cmpFlags struct {
	compare    bool
	big        bool
	designs    string
	modes      string
	workers    string
	scaleW     string
	scaleProcs int
	scaleRuns  int
	scaleD     string
	idleWindow time.Duration
	from       string
}

func (f *cmpFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.compare, "compare", false, "run the comparison (trees, fan-out, uneven roots, flat jobs, skew; idle workers and W scaling; simulator) instead of the sweep")
	fs.BoolVar(&f.big, "big", false, "-compare: spawn-heavy trees of 131,068 jobs instead of 4,092")
	fs.StringVar(&f.designs, "designs", "", "-compare: comma-separated designs (default all but steal-one, central-ledger, central-pipelined, steal-wq and steal-wq-streams)")
	fs.StringVar(&f.modes, "modes", "", "-compare: where the workers run: processes, in-process or both (default processes)")
	fs.StringVar(&f.workers, "workers", "", "-compare: comma-separated W of the workload cells (default 16)")
	fs.StringVar(&f.scaleW, "scale-workers", "", "-compare: comma-separated W of the idle and scaling cells (default 16,64,256; none: skip them)")
	fs.IntVar(&f.scaleProcs, "scale-procs", 0, "-compare: run the idle and scaling cells also with one process per worker up to this W")
	fs.StringVar(&f.scaleD, "scale-designs", "", "-compare: comma-separated designs of the idle and scaling cells (default steal, no-steal, central-f1, central-f16, central-async)")
	fs.DurationVar(&f.idleWindow, "idle-window", 0, "-compare: how long the idle cells count the server's messages (default 2s); longer than 4 leases (12s) holds every worker's periodic read of the workers bucket")
	fs.IntVar(&f.scaleRuns, "scale-runs", 0, "-compare: runs of the idle, scaling and steal-latency cells (default 3)")
	fs.StringVar(&f.from, "from", "", "-compare: run nothing; write the tables and chart of this JSON file (an earlier -compare -json)")
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad worker count %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// config is the comparison's configuration from the flags.
// only, when set, names the workloads to run (comma-separated).
func (f *cmpFlags) config(quick bool, runs int, only string) (cmpConfig, error) {
	cfg := fullCmpConfig()
	if quick {
		cfg = quickCmpConfig()
	}
	if f.big {
		cfg.Workloads = cmpWorkloads(true)
	}
	if runs > 0 {
		cfg.Runs = runs
	}
	if only != "" {
		var wls []workload
		for _, n := range strings.Split(only, ",") {
			i := slices.IndexFunc(cfg.Workloads, func(wl workload) bool { return wl.Name == n })
			if i < 0 {
				return cfg, fmt.Errorf("-only: no workload %q", n)
			}
			wls = append(wls, cfg.Workloads[i])
		}
		cfg.Workloads = wls
	}
	if f.scaleRuns > 0 {
		cfg.Scale.Runs = f.scaleRuns
	}
	cfg.Scale.ProcsUpTo = f.scaleProcs
	if f.designs != "" {
		cfg.Designs = strings.Split(f.designs, ",")
	}
	if f.idleWindow > 0 {
		cfg.Scale.Window = f.idleWindow
	}
	if f.scaleD != "" {
		cfg.Scale.Designs = strings.Split(f.scaleD, ",")
	}
	switch f.modes {
	case "":
	case modeProcesses, modeInProcess:
		cfg.Modes = []string{f.modes}
	case "both":
		cfg.Modes = []string{modeInProcess, modeProcesses}
	default:
		return cfg, fmt.Errorf("-modes %q: want processes, in-process or both", f.modes)
	}
	var err error
	if f.workers != "" {
		if cfg.Workers, err = ints(f.workers); err != nil {
			return cfg, err
		}
	}
	switch f.scaleW {
	case "":
	case "none":
		cfg.Scale.Workers = nil
	default:
		if cfg.Scale.Workers, err = ints(f.scaleW); err != nil {
			return cfg, err
		}
	}
	if _, err := pickDesigns(cfg.Designs, cfg.Modes, cfg.FetchK); err != nil {
		return cfg, err
	}
	if _, err := pickDesigns(cfg.Scale.Designs, cfg.Modes, cfg.FetchK); err != nil {
		return cfg, err
	}
	if !slices.Contains(cfg.Designs, cfg.baseline()) {
		return cfg, fmt.Errorf("-designs must include %s, the baseline of every ratio", cfg.baseline())
	}
	return cfg, nil
}

// renderCompare writes the outputs of the comparison in the JSON file
// from, without running anything.
func renderCompare(from, jsonOut, mdOut, chartOut string, stdout, stderr io.Writer) int {
	b, err := os.ReadFile(from)
	if err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	var r cmpReport
	if err := json.Unmarshal(b, &r); err != nil {
		fmt.Fprintln(stderr, "clusterbench:", from+":", err)
		return 1
	}
	if err := writeCompare(&r, jsonOut, mdOut, chartOut, stdout); err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	return 0
}

// runCompare runs the comparison and writes its outputs.
func runCompare(cfg cmpConfig, args []string, jsonOut, mdOut, chartOut string, stdout, stderr io.Writer) int {
	r, err := measureCompare(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	r.Command = strings.Join(append([]string{"go run ./cmd/clusterbench"}, args...), " ")
	if err := writeCompare(r, jsonOut, mdOut, chartOut, stdout); err != nil {
		fmt.Fprintln(stderr, "clusterbench:", err)
		return 1
	}
	return 0
}

func writeCompare(r *cmpReport, jsonOut, mdOut, chartOut string, stdout io.Writer) error {
	var md bytes.Buffer
	cmpMarkdown(&md, r)
	if jsonOut == "" && mdOut == "" && chartOut == "" {
		_, err := stdout.Write(md.Bytes())
		return err
	}
	if jsonOut != "" {
		if err := writeJSON(jsonOut, r); err != nil {
			return err
		}
	}
	if chartOut != "" {
		if err := writeJSON(chartOut, cmpChart(r)); err != nil {
			return err
		}
	}
	if mdOut != "" {
		if old, err := os.ReadFile(mdOut); err == nil && !bytes.Contains(old, []byte(cmpBeginMark)) {
			return fmt.Errorf("%s has no line %q: not overwritten", mdOut, strings.TrimSpace(cmpBeginMark))
		}
		return writeBetween(mdOut, md.Bytes(), cmpBeginMark, cmpEndMark)
	}
	return nil
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// simDoc is the document steal sim -json -samples writes (its simJSON, in
// internal/cli/simjson.go). Times are in ms.
type simDoc struct {
	Workers        int         `json:"workers"`
	Jobs           int         `json:"jobs"`
	Distribution   string      `json:"distribution"`
	Cost           string      `json:"cost"`
	MeanMS         float64     `json:"mean_ms"`
	StealLatencyMS float64     `json:"steal_latency_ms"`
	Seed           uint64      `json:"seed"`
	Results        []simResult `json:"results"`
}

type simResult struct {
	Policy       string      `json:"policy"`
	MakespanMS   float64     `json:"makespan_ms"`
	LowerBoundMS float64     `json:"lower_bound_ms"`
	Ratio        float64     `json:"makespan_ratio"`
	Utilisation  float64     `json:"utilisation"`
	Samples      []simSample `json:"samples"`
}

type simSample struct {
	AtMS        float64 `json:"at_ms"`
	Queues      []int32 `json:"queues"`
	Central     int     `json:"central"`
	Utilisation float64 `json:"utilisation"`
}

// readSim parses and checks steal sim's JSON.
func readSim(data []byte) (*simDoc, error) {
	var doc simDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading simulation: %w", err)
	}
	if len(doc.Results) == 0 || doc.Workers < 1 {
		return nil, errors.New("reading simulation: no workers or no results (want the output of steal sim -json -samples)")
	}
	for _, r := range doc.Results {
		if len(r.Samples) == 0 {
			return nil, fmt.Errorf("reading simulation: policy %q has no samples (run steal sim with -json -samples)", r.Policy)
		}
		for _, s := range r.Samples {
			if len(s.Queues) != doc.Workers {
				return nil, fmt.Errorf("reading simulation: policy %q has a sample at %v ms with %d queues for %d workers",
					r.Policy, s.AtMS, len(s.Queues), doc.Workers)
			}
		}
	}
	return &doc, nil
}

// describe is the chart's header: the workload, as steal sim's table says it.
func describe(doc *simDoc) string {
	return fmt.Sprintf("steal sim: %d jobs (%s, mean %v ms, start: %s) on %d workers, steal latency %v ms, seed %d",
		doc.Jobs, doc.Cost, svgplot.FormatTick(doc.MeanMS, 3), doc.Distribution, doc.Workers,
		svgplot.FormatTick(doc.StealLatencyMS, 3), doc.Seed)
}

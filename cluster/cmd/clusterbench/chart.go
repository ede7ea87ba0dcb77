package main

import "fmt"

// chartDoc is the input of `charts scaling` (bench/cmd/charts): lines of
// jobs/s against workers, measured and simulated.
type chartDoc struct {
	Title  string        `json:"title"`
	X      string        `json:"x_label"`
	Y      string        `json:"y_label"`
	Series []chartSeries `json:"series"`
}

// chartSeries is one line; Style is "measured", "simulated" or "ceiling"
// (a level, drawn across the chart).
type chartSeries struct {
	Name   string       `json:"name"`
	Style  string       `json:"style"`
	Points [][2]float64 `json:"points"`
}

func chart(r *report) chartDoc {
	fk := fmt.Sprintf("central-f%d", r.Config.FetchK)
	doc := chartDoc{
		Title: "1 ms sleeping jobs: jobs/s against workers, measured (W ≤ 16) and simulated",
		X:     "workers (log scale)", Y: "jobs/s (log scale)",
	}
	for _, d := range []string{"steal", "central-f1", fk} {
		s := chartSeries{Name: d + " measured", Style: "measured"}
		for _, c := range r.Cells {
			if c.Workload == "sleep-1ms" && c.Design == d && c.Mode == modeInProcess {
				s.Points = append(s.Points, [2]float64{float64(c.W), c.JobsPerS})
			}
		}
		doc.Series = append(doc.Series, s)
	}
	for _, d := range []string{"steal", "central-f1", fk} {
		s := chartSeries{Name: d + " simulated", Style: "simulated"}
		for _, p := range r.Sim {
			if p.Design == d {
				s.Points = append(s.Points, [2]float64{float64(p.W), p.JobsPerS})
			}
		}
		doc.Series = append(doc.Series, s)
	}
	limit := chartSeries{Name: "steal, no-op jobs, measured", Style: "ceiling"}
	for _, c := range r.Cells {
		if c.Workload == "noop" && c.Design == "steal" && c.Mode == modeInProcess {
			limit.Points = append(limit.Points, [2]float64{float64(c.W), c.JobsPerS})
		}
	}
	doc.Series = append(doc.Series, limit)
	return doc
}

package main

import (
	"fmt"
	"image/color"
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// The sim chart's geometry, in points.
const (
	panelHeight  = 190
	headerHeight = 22
	chartWorkers = 8 // workers drawn one by one; with more, max and mean too
)

// drawSim draws the document as one SVG: a header naming the workload,
// the panels of simPanels one above the other, and each panel's legend on
// its right.
func drawSim(w io.Writer, doc *simDoc) error {
	plots, legends, err := simPanels(doc)
	if err != nil {
		return err
	}
	svg, area := newCanvas(vg.Length(headerHeight + panelHeight*len(plots)))
	header := svgplot.TextStyle(12)
	header.YAlign = draw.YTop
	area.FillText(header, vg.Point{X: area.Min.X, Y: area.Max.Y}, describe(doc)) // left: room to grow right
	panels := draw.Crop(area, 0, -legendWidth, 0, -headerHeight)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: 6, PadBottom: 4, PadY: 14}
	for i, c := range plot.Align(plots, tiles, panels) {
		plots[i][0].Draw(c[0])
		side := draw.Crop(area, chartWidth-2*margin-legendWidth+10, 0, 0, 0)
		side.Min.Y, side.Max.Y = c[0].Min.Y, c[0].Max.Y-24 // below the panel's title
		legends[i].Draw(side)
	}
	return svgplot.WriteSVG(w, svg)
}

// simPanels makes, for each policy, a panel of the queue length of the
// first workers over virtual time (and the max and mean over all workers
// when there are more than chartWorkers), then a panel of every policy's
// utilisation. All panels share the queue axis and the time axis, except
// that a policy that runs over twice as long as the quickest gets a time
// axis of its own, and its title says so.
func simPanels(doc *simDoc) ([][]*plot.Plot, []plot.Legend, error) {
	ends := make([]float64, len(doc.Results))
	var ymax float64
	for i, r := range doc.Results {
		ends[i] = max(r.Samples[len(r.Samples)-1].AtMS, r.LowerBoundMS, 1e-6)
		for _, s := range r.Samples {
			ymax = max(ymax, float64(slices.Max(s.Queues)), float64(s.Central))
		}
	}
	shared := sharedEnd(ends)
	var plots [][]*plot.Plot
	var legends []plot.Legend
	for i, r := range doc.Results {
		p, l, err := queuePanel(r, doc.Workers, ends[i], shared, max(ymax, 1))
		if err != nil {
			return nil, nil, err
		}
		plots, legends = append(plots, []*plot.Plot{p}), append(legends, l)
	}
	u, l, err := utilisationPanel(doc.Results, ends, shared)
	if err != nil {
		return nil, nil, err
	}
	return append(plots, []*plot.Plot{u}), append(legends, l), nil
}

// sharedEnd is the end of the common time axis: the latest end among the
// runs that take at most twice as long as the quickest.
func sharedEnd(ends []float64) float64 {
	quickest, shared := slices.Min(ends), 0.0
	for _, e := range ends {
		if e <= 2*quickest {
			shared = max(shared, e)
		}
	}
	return shared
}

// queuePanel plots one policy's queue lengths over time, with its legend,
// and marks the lower bound on the makespan. The time axis ends at shared
// unless the run's own end is later; the queue axis ends at ymax.
func queuePanel(r simResult, workers int, end, shared, ymax float64) (*plot.Plot, plot.Legend, error) {
	title := fmt.Sprintf("%s: makespan %s ms (%.2f× bound), utilisation %.1f%%",
		r.Policy, svgplot.FormatTick(r.MakespanMS, 1), r.Ratio, 100*r.Utilisation)
	xlabel := "virtual time (ms)"
	if end > shared {
		title += fmt.Sprintf("; own time axis, %s× longer", svgplot.FormatTick(end/shared, 1))
		xlabel = "virtual time (ms): this panel's own scale"
	}
	if workers > chartWorkers && r.Policy != "central" {
		title += fmt.Sprintf("; workers 0-%d of %d", chartWorkers-1, workers)
	}
	p, legend := newPanel(title, xlabel, "queued jobs")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, max(end, shared), 0, ymax
	if r.Policy == "central" {
		l, err := stepLine(r, func(s simSample) float64 { return float64(s.Central) })
		if err != nil {
			return nil, legend, err
		}
		l.LineStyle = draw.LineStyle{Color: color.Black, Width: 1.5}
		p.Add(l)
		legend.Add("central queue", l)
		return p, legend, markBound(p, &legend, r)
	}
	lines, names, err := workerLines(r, workers)
	if err != nil {
		return nil, legend, err
	}
	// Drawn last to first, so that worker 0, the one that starts with the
	// jobs under the default distribution, stays on top where lines meet;
	// listed first to last.
	for i := len(lines) - 1; i >= 0; i-- {
		p.Add(lines[i])
	}
	for i, l := range lines {
		legend.Add(names[i], l)
	}
	return p, legend, markBound(p, &legend, r)
}

// workerLines are the queue lines of the first chartWorkers workers, and
// with more workers the max and mean over all of them.
func workerLines(r simResult, workers int) ([]*plotter.Line, []string, error) {
	var lines []*plotter.Line
	var names []string
	add := func(name string, style draw.LineStyle, y func(simSample) float64) error {
		l, err := stepLine(r, y)
		if err == nil {
			l.LineStyle = style
			lines, names = append(lines, l), append(names, name)
		}
		return err
	}
	for w := range min(workers, chartWorkers) {
		err := add(fmt.Sprintf("worker %d", w), draw.LineStyle{Color: workerColor(w), Width: 1.3},
			func(s simSample) float64 { return float64(s.Queues[w]) })
		if err != nil {
			return nil, nil, err
		}
	}
	if workers <= chartWorkers {
		return lines, names, nil
	}
	err := add(fmt.Sprintf("max of all %d", workers), draw.LineStyle{Color: color.Black, Width: 1.5, Dashes: []vg.Length{5, 3}},
		func(s simSample) float64 { return float64(slices.Max(s.Queues)) })
	if err == nil {
		err = add(fmt.Sprintf("mean of all %d", workers), draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: 1.5, Dashes: []vg.Length{1.5, 2}},
			func(s simSample) float64 { return mean(s.Queues) })
	}
	return lines, names, err
}

func mean(v []int32) float64 {
	var sum float64
	for _, x := range v {
		sum += float64(x)
	}
	return sum / float64(len(v))
}

// markBound draws a vertical line at the lower bound on the makespan,
// which a perfect schedule would end at.
func markBound(p *plot.Plot, legend *plot.Legend, r simResult) error {
	l, err := plotter.NewLine(plotter.XYs{{X: r.LowerBoundMS, Y: 0}, {X: r.LowerBoundMS, Y: p.Y.Max}})
	if err != nil {
		return err
	}
	l.LineStyle = draw.LineStyle{Color: color.Black, Width: 1, Dashes: []vg.Length{8, 3, 2, 3}}
	p.Add(l)
	legend.Add("lower bound", l)
	return nil
}

// utilisationPanel plots each policy's utilisation between samples on the
// common time axis, which ends at shared: a longer run is cut off there,
// and its legend entry says where it ends. The first policies are drawn
// last, on top, each with its own dash pattern, so that lines that
// coincide stay visible.
func utilisationPanel(results []simResult, ends []float64, shared float64) (*plot.Plot, plot.Legend, error) {
	xlabel := "virtual time (ms)"
	if slices.Max(ends) > shared {
		xlabel += ", as above; longer runs are cut off"
	}
	p, legend := newPanel("utilisation: busy worker time / (workers × sampling interval), all policies",
		xlabel, "utilisation (%)")
	lines := make([]*plotter.Line, len(results))
	for i, r := range results {
		l, err := stepLine(r, func(s simSample) float64 { return 100 * s.Utilisation })
		if err != nil {
			return nil, legend, err
		}
		l.LineStyle = draw.LineStyle{Color: policyColors[i%len(policyColors)], Width: 1.6,
			Dashes: policyDashes[i%len(policyDashes)]}
		lines[i] = l
		name := r.Policy
		if ends[i] > shared {
			name += fmt.Sprintf(" (to %s ms)", svgplot.FormatTick(r.MakespanMS, 0))
		}
		legend.Add(name, l)
	}
	for i := len(lines) - 1; i >= 0; i-- {
		p.Add(lines[i])
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, shared, 0, 105
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{
		{Value: 0, Label: "0"}, {Value: 25}, {Value: 50, Label: "50"}, {Value: 75}, {Value: 100, Label: "100"}})
	return p, legend, nil
}

// stepLine is a line through (time, y(sample)) for r's samples. Runs of
// equal values keep only their ends, which draws the same line with fewer
// points.
func stepLine(r simResult, y func(simSample) float64) (*plotter.Line, error) {
	pts := make(plotter.XYs, 0, len(r.Samples))
	for _, s := range r.Samples {
		v := y(s)
		n := len(pts)
		if n >= 2 && pts[n-1].Y == v && pts[n-2].Y == v {
			pts[n-1].X = s.AtMS // extend the flat run
			continue
		}
		pts = append(pts, plotter.XY{X: s.AtMS, Y: v})
	}
	return plotter.NewLine(pts)
}

package main

import (
	"fmt"
	"image/color"
	"io"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/worksteal/steal/sim"
)

// The chart's geometry, in points: one panel per policy and a utilisation
// panel, stacked, each with its legend in a column on the right.
const (
	chartWidth   = 720
	panelHeight  = 200
	legendWidth  = 120
	chartWorkers = 8 // workers drawn one by one; with more, max and mean too
)

// palette is Tableau 10, whose colours stay distinct for the eight workers
// and the policies.
var palette = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0x59a14f), rgb(0xe15759),
	rgb(0x76b7b2), rgb(0xb07aa1), rgb(0xedc948), rgb(0x9c755f),
	rgb(0xff9da7), rgb(0xbab0ac),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// chartSampling picks the sampling of a chart: at most 1,000 samples (fewer
// when there are so many workers that they would take over 4 Mi queue
// lengths), starting at an interval that puts about half of them within
// the workload's lower bound, so that a well balanced run gets 500 to 1,000
// and a longer one is halved down to the same.
func chartSampling(wl sim.Workload) sim.Sampling {
	maxSamples := min(1000, max(2, (4<<20)/max(1, wl.Workers)))
	var total, longest time.Duration
	for k := range wl.Jobs {
		c := wl.JobCost(k)
		total += c
		longest = max(longest, c)
	}
	bound := max(total/time.Duration(max(1, wl.Workers)), longest)
	return sim.Sampling{Every: max(bound/time.Duration(maxSamples/2), 1), Max: maxSamples}
}

// writeChart draws the sampled results as one SVG document: for each
// policy, the queue length of the first workers over virtual time (and the
// max and mean over all workers when there are more than chartWorkers),
// each on its own time axis, then a panel with every policy's utilisation
// on a time axis common to all.
func writeChart(w io.Writer, results []sim.Result) error {
	var plots [][]*plot.Plot
	var legends []plot.Legend
	var end float64
	for _, r := range results {
		p, l, err := queuePanel(r)
		if err != nil {
			return err
		}
		plots, legends = append(plots, []*plot.Plot{p}), append(legends, l)
		end = max(end, p.X.Max)
	}
	u, l, err := utilisationPanel(results)
	if err != nil {
		return err
	}
	u.X.Max = end
	u.X.Label.Text = "virtual time (ms), one scale for all policies"
	plots, legends = append(plots, []*plot.Plot{u}), append(legends, l)

	canvas := vgsvg.New(chartWidth, vg.Length(panelHeight*len(plots)))
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: 6, PadBottom: 4, PadLeft: 4, PadRight: 4, PadY: 12}
	for i, c := range plot.Align(plots, tiles, draw.Crop(dc, 0, -legendWidth, 0, 0)) {
		plots[i][0].Draw(c[0])
		legend := draw.Crop(dc, chartWidth-legendWidth+8, 0, 0, 0)
		legend.Min.Y, legend.Max.Y = c[0].Min.Y, c[0].Max.Y-24 // below the title
		legends[i].Draw(legend)
	}
	return writeSVG(w, canvas)
}

// sans is the chart's font: Liberation Sans, which gonum embeds the
// metrics of and SVG viewers render with any sans-serif font.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// newPanel is a plot with the chart's fonts and a legend to draw beside it.
func newPanel(title, ylabel string) (*plot.Plot, plot.Legend) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(11)
	p.Title.Padding = 4
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
	}
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	l.TextStyle.Font = sans(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 18
	return p, l
}

// queuePanel plots one policy's queue lengths over time, with its legend,
// and marks the lower bound on the makespan.
func queuePanel(r sim.Result) (*plot.Plot, plot.Legend, error) {
	workers := r.Workers()
	title := fmt.Sprintf("%v: makespan %v (%.2f× bound), utilisation %.1f%%",
		r.Policy, r.Makespan.Round(time.Millisecond), r.Ratio(), 100*r.Utilisation())
	if workers > chartWorkers && r.Policy.Mode != sim.Central {
		title += fmt.Sprintf("; workers 0-%d of %d shown", chartWorkers-1, workers)
	}
	p, legend := newPanel(title, "queued jobs")
	p.X.Label.Text = "virtual time (ms), this policy's own scale"
	line := func(style draw.LineStyle, y func(sim.Sample) float64) (*plotter.Line, error) {
		l, err := plotter.NewLine(series(r, y))
		if err == nil {
			l.LineStyle = style
		}
		return l, err
	}
	if r.Policy.Mode == sim.Central {
		l, err := line(draw.LineStyle{Color: color.Black, Width: 1.5}, func(s sim.Sample) float64 { return float64(s.Central) })
		if err != nil {
			return nil, legend, err
		}
		p.Add(l)
		legend.Add("central queue", l)
		return p, legend, markBound(p, &legend, r)
	}
	var lines []*plotter.Line
	var names []string
	for w := range min(workers, chartWorkers) {
		l, err := line(draw.LineStyle{Color: palette[w%len(palette)], Width: 1.2},
			func(s sim.Sample) float64 { return float64(s.Queues[w]) })
		if err != nil {
			return nil, legend, err
		}
		lines, names = append(lines, l), append(names, fmt.Sprintf("worker %d", w))
	}
	if workers > chartWorkers {
		maxLine, err := line(draw.LineStyle{Color: color.Black, Width: 1.5, Dashes: []vg.Length{5, 3}},
			func(s sim.Sample) float64 { return float64(slices.Max(s.Queues)) })
		if err != nil {
			return nil, legend, err
		}
		meanLine, err := line(draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: 1.5, Dashes: []vg.Length{1.5, 2}},
			func(s sim.Sample) float64 { return float64(s.Queued()) / float64(len(s.Queues)) })
		if err != nil {
			return nil, legend, err
		}
		lines = append(lines, maxLine, meanLine)
		names = append(names, fmt.Sprintf("max of all %d", workers), fmt.Sprintf("mean of all %d", workers))
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

// markBound finishes a queue panel: it fixes the axes and draws a vertical
// line at the lower bound on the makespan, which a perfect schedule would
// end at.
func markBound(p *plot.Plot, legend *plot.Legend, r sim.Result) error {
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Max = max(p.Y.Max, 1)
	if n := len(r.Samples); n > 0 {
		p.X.Max = max(p.X.Max, ms(r.Samples[n-1].At))
	}
	p.X.Max = max(p.X.Max, ms(r.LowerBound()), 1e-6)
	bound := ms(r.LowerBound())
	l, err := plotter.NewLine(plotter.XYs{{X: bound, Y: 0}, {X: bound, Y: p.Y.Max}})
	if err != nil {
		return err
	}
	l.LineStyle = draw.LineStyle{Color: color.Black, Width: 1, Dashes: []vg.Length{8, 3, 2, 3}}
	p.Add(l)
	legend.Add("lower bound", l)
	return nil
}

// utilisationPanel plots each policy's utilisation between samples. The
// first policies are drawn last, on top, and every other one dashed, so
// that policies whose lines coincide all stay visible.
func utilisationPanel(results []sim.Result) (*plot.Plot, plot.Legend, error) {
	p, legend := newPanel("utilisation: busy worker time / (workers × sampling interval), all policies", "utilisation (%)")
	lines := make([]*plotter.Line, len(results))
	for i, r := range results {
		l, err := plotter.NewLine(series(r, nil))
		if err != nil {
			return nil, legend, err
		}
		l.LineStyle = draw.LineStyle{Color: palette[i%len(palette)], Width: 1.5}
		if i%2 == 1 {
			l.LineStyle.Dashes = []vg.Length{6, 3}
		}
		lines[i] = l
		legend.Add(r.Policy.String(), l)
	}
	for i := len(lines) - 1; i >= 0; i-- {
		p.Add(lines[i])
	}
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, 105
	return p, legend, nil
}

// series turns r's samples into points: (time in ms, y(sample)), or the
// utilisation in percent when y is nil. Runs of equal values keep only
// their ends, which draws the same line with fewer points.
func series(r sim.Result, y func(sim.Sample) float64) plotter.XYs {
	pts := make(plotter.XYs, 0, len(r.Samples))
	for i, s := range r.Samples {
		v := 0.0
		if y != nil {
			v = y(s)
		} else {
			v = 100 * r.SampleUtilisation(i)
		}
		n := len(pts)
		if n >= 2 && pts[n-1].Y == v && pts[n-2].Y == v {
			pts[n-1].X = ms(s.At) // extend the flat run
			continue
		}
		pts = append(pts, plotter.XY{X: ms(s.At), Y: v})
	}
	return pts
}

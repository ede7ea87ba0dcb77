package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// palette has a distinct color per implementation in implOrder.
var palette = []color.Color{
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, // steal: red
	color.RGBA{0xff, 0x98, 0x96, 0xff}, // steal-join: light red
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, // steal-group: olive
	color.RGBA{0x7f, 0x7f, 0x7f, 0xff}, // steal-spawn: grey
	color.RGBA{0xf7, 0xb6, 0xd2, 0xff}, // steal-batch: light pink
	color.RGBA{0x98, 0xdf, 0x8a, 0xff}, // steal-go: light green
	color.RGBA{0x52, 0x8a, 0x4c, 0xff}, // steal-go-max: dark green
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, // goroutines: blue
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, // errgroup: orange
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, // ants: purple
	color.RGBA{0x8c, 0x56, 0x4b, 0xff}, // pond: brown
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, // conc: pink
	color.RGBA{0x17, 0xbe, 0xcf, 0xff}, // channel: cyan
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, // sequential: green
}

func implRGB(impl string) color.Color { return palette[implColor(impl)%len(palette)] }

// implColor gives every implementation the same index in every chart.
func implColor(impl string) int {
	for i, n := range implOrder {
		if n == impl {
			return i
		}
	}
	return len(implOrder)
}

// The time chart's geometry, in points: a grid of panels, three a row.
const (
	timeCols        = 3
	timePanelWidth  = 330
	timePanelHeight = 210
)

// timeChart draws one panel per workload: a horizontal bar per
// implementation, labelled with its figure (median time, CPU ms per idle
// second, bytes per queued task), so that a bar too short to see still
// says its value.
func timeChart(results []Result, path string) error {
	wls := workloadsIn(results)
	rows := (len(wls) + timeCols - 1) / timeCols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, timeCols)
	}
	for k, wl := range wls {
		p, err := timePanel(results, wl)
		if err != nil {
			return err
		}
		plots[k/timeCols][k%timeCols] = p
	}
	img, area := svgplot.NewCanvas(timePanelWidth*timeCols+2*svgplot.Margin, timePanelHeight*vg.Length(rows)+svgplot.Margin)
	tiles := draw.Tiles{Rows: rows, Cols: timeCols, PadX: 24, PadY: 16}
	canvases := plot.Align(plots, tiles, area)
	for j := range plots {
		for i := range plots[j] {
			if plots[j][i] != nil {
				plots[j][i].Draw(canvases[j][i])
			}
		}
	}
	return saveSVG(img, path)
}

// timePanel is one workload's bars, the first implementation on top.
func timePanel(results []Result, wl string) (*plot.Plot, error) {
	p := plot.New()
	svgplot.Style(p)
	unit, scale := "median time (ms)", 1e6
	switch wl {
	case "idle":
		unit = "CPU ms per idle second"
	case "memory":
		unit, scale = "bytes per queued task", 1
	}
	p.Title.Text = wl
	p.X.Label.Text = unit
	var impls []string
	for _, im := range implOrder {
		if _, ok := find(results, wl, im); ok {
			impls = append(impls, im)
		}
	}
	names := make([]string, len(impls))
	labels := barLabels{}
	var top float64
	for i, im := range impls {
		r, _ := find(results, wl, im)
		y := float64(len(impls) - 1 - i)
		names[len(impls)-1-i] = im
		if !r.OK {
			text := r.Error
			if w := lookupWorkload(wl); w != nil && r.Error == errTimeout.Error() && slices.Contains(w.Deadlocks, im) {
				text = "timed out: deadlocks by design"
			}
			labels = append(labels, barLabel{0, y, text})
			continue
		}
		v := figure(r) / scale
		top = max(top, v)
		bar, err := plotter.NewBarChart(plotter.Values{v}, 11)
		if err != nil {
			return nil, err
		}
		bar.Horizontal, bar.XMin = true, y
		bar.Color, bar.LineStyle.Width = implRGB(im), 0
		p.Add(bar)
		labels = append(labels, barLabel{v, y, fmtFigure(r)})
	}
	p.Add(labels)
	p.NominalY(names...)
	p.Y.Tick.Label.Font = svgplot.Sans(9)
	p.X.Min, p.X.Max = 0, max(top, 1e-9)*1.5 // room for the labels
	return p, nil
}

// barLabel is the text after a bar's end.
type barLabel struct {
	x, y float64
	text string
}

// barLabels draws each label just right of (x, y).
type barLabels []barLabel

func (b barLabels) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	sty := svgplot.TextStyle(8)
	sty.YAlign = draw.YCenter
	for _, l := range b {
		c.FillText(sty, vg.Point{X: x(l.x) + 3, Y: y(l.y)}, l.text)
	}
}

// ratioChart draws each implementation's figure over goroutines', per
// workload that has one, on a log scale: below 1 is better than
// goroutines. The legend has a column of its own on the right, clear of
// the points.
func ratioChart(results []Result, path string) error {
	var wls []string // those with a goroutines figure to divide by
	for _, wl := range workloadsIn(results) {
		if _, ok := baseline(results, wl); ok {
			wls = append(wls, wl)
		}
	}
	p := plot.New()
	svgplot.Style(p)
	p.Title.Text = "figure / goroutines' figure, per workload (log scale; below 1 is better)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Label.Text = "ratio to goroutines"
	legend := plot.NewLegend()
	legend.TextStyle.Font = svgplot.Sans(9)
	legend.Top, legend.Left = true, true
	lo, hi := 1.0, 1.0
	impls := implsIn(results)
	for n, im := range impls {
		if im == "goroutines" {
			continue
		}
		pts := ratioPoints(results, wls, im, (float64(n)-float64(len(impls)-1)/2)*0.06)
		if len(pts) == 0 {
			continue
		}
		for _, pt := range pts {
			lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = implRGB(im)
		s.GlyphStyle.Shape = plotutil.Shape(implColor(im))
		s.GlyphStyle.Radius = vg.Points(4)
		p.Add(s)
		legend.Add(im, s)
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color = implRGB("goroutines")
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	legend.Add("goroutines = 1", one)
	p.NominalX(wls...)
	p.X.Min, p.X.Max = -0.6, float64(len(wls))-0.4
	p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	p.Y.Tick.Marker = plot.ConstantTicks(logTicks(p.Y.Min, p.Y.Max))
	p.Add(plotter.NewGrid())

	const width, legendWidth = 900, 110
	img, area := svgplot.NewCanvas(width, 420)
	p.Draw(draw.Crop(area, 0, -legendWidth, 0, 0))
	side := draw.Crop(area, width-2*svgplot.Margin-legendWidth+12, 0, 0, -24)
	legend.Draw(side)
	return saveSVG(img, path)
}

// ratioPoints are im's ratios to goroutines, one per workload that has
// one, shifted by off so that implementations do not hide each other.
func ratioPoints(results []Result, wls []string, im string, off float64) plotter.XYs {
	var pts plotter.XYs
	for k, wl := range wls {
		r, ok := find(results, wl, im)
		if !ok {
			continue
		}
		if x, ok := ratio(results, r); ok && x > 0 {
			pts = append(pts, plotter.XY{X: float64(k) + off, Y: x})
		}
	}
	return pts
}

// logTicks marks 1 and 3 × 10^k between lo and hi, and the other integer
// multiples unlabelled.
func logTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains([]float64{1, 3}, m) {
				t.Label = svgplot.FormatTick(v, max(0, int(-e)))
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

func saveSVG(img *vgsvg.Canvas, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := svgplot.WriteSVG(f, img); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

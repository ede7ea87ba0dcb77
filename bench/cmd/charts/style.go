package main

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// The charts' geometry, in points.
const (
	chartWidth  = 760
	legendWidth = 130 // a column on the right for each panel's legend
	margin      = svgplot.Margin
)

// workerColors tell eight workers apart: Tableau 10 without its yellow,
// which is faint on white, and its grey, which stands for parked time.
var workerColors = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0x59a14f), rgb(0xe15759),
	rgb(0xb07aa1), rgb(0x9c755f), rgb(0xff9da7), rgb(0x76b7b2),
}

// policyColors are darker and differ from the workers' colours in order,
// so that the utilisation panel's lines are not mistaken for workers.
var policyColors = []color.Color{
	rgb(0x000000), rgb(0xd62728), rgb(0x1f77b4), rgb(0x2ca02c),
	rgb(0xff7f0e), rgb(0x9467bd), rgb(0x17becf), rgb(0x8c564b),
}

// policyDashes give each policy's line its own pattern as well, so that
// lines which coincide stay visible.
var policyDashes = [][]vg.Length{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}, {4, 4}, {1, 3}, {10, 4}, {6, 2, 1, 2}}

var (
	parkedColor = color.Gray{Y: 0xc8}
	stealColor  = color.Black
)

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func workerColor(w int) color.Color { return workerColors[w%len(workerColors)] }

// newPanel is a plot with the charts' fonts, round-number ticks and a
// grid, and a legend to draw beside it.
func newPanel(title, xlabel, ylabel string) (*plot.Plot, plot.Legend) {
	p := plot.New()
	svgplot.Style(p)
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	l.TextStyle.Font = svgplot.Sans(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 20
	l.Padding = 2
	return p, l
}

// newCanvas is a white chartWidth-wide SVG canvas of the given height, and
// the part of it inside the margin.
func newCanvas(height vg.Length) (*vgsvg.Canvas, draw.Canvas) {
	return svgplot.NewCanvas(chartWidth, height)
}

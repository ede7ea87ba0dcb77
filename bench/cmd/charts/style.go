package main

import (
	"bytes"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts' geometry, in points.
const (
	chartWidth  = 760
	legendWidth = 130 // a column on the right for each panel's legend
	// margin keeps labels inside the picture when a viewer substitutes a
	// wider font (DejaVu Sans is about 15% wider than Liberation Sans,
	// whose metrics gonum lays the labels out with).
	margin = 14
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

// sans is the charts' font: Liberation Sans, which gonum embeds the
// metrics of; writeSVG names metric-compatible fallbacks.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func textStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: sans(size), Handler: plot.DefaultTextHandler}
}

// newPanel is a plot with the charts' fonts, round-number ticks and a
// grid, and a legend to draw beside it.
func newPanel(title, xlabel, ylabel string) (*plot.Plot, plot.Legend) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(11)
	p.Title.Padding = 4
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
		a.Tick.Marker = plot.TickerFunc(roundTicks)
	}
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	l.TextStyle.Font = sans(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 20
	l.Padding = 2
	return p, l
}

// roundTicks marks an axis at round numbers: major ticks 1, 2 or 5 × 10^k
// apart, three to eight of them, labelled with only the decimals they need
// (0, 0.5, 1, never 1.00), and unlabelled minor ticks between.
func roundTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 0)}}
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/3)))
	step, minors := mag, 5
	switch r := (hi - lo) / 3 / mag; {
	case r >= 5:
		step = 5 * mag
	case r >= 2:
		step, minors = 2*mag, 4
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	minor := step / float64(minors)
	var ticks []plot.Tick
	for i := math.Ceil(lo/minor - 1e-9); i*minor <= hi+minor*1e-9; i++ {
		t := plot.Tick{Value: i * minor}
		if math.Mod(i, float64(minors)) == 0 {
			t.Label = formatTick(t.Value, decimals)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// formatTick prints v rounded to decimals, without trailing zeros.
func formatTick(v float64, decimals int) string {
	p := math.Pow(10, float64(decimals))
	v = math.Round(v*p) / p
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// newCanvas is an SVG canvas of the given height, painted white so that
// viewers with a dark background still show the black text, and the part
// of it inside the margin.
func newCanvas(height vg.Length) (*vgsvg.Canvas, draw.Canvas) {
	c := vgsvg.New(chartWidth, height)
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: chartWidth, Y: 0}, {X: chartWidth, Y: height}, {X: 0, Y: height}})
	return c, draw.Crop(dc, margin, -margin, margin/2, -margin/2)
}

// writeSVG writes a finished canvas. gonum names the font alone; Arial and
// Helvetica have the same metrics, so viewers without Liberation Sans still
// fit the labels.
func writeSVG(w io.Writer, canvas *vgsvg.Canvas) error {
	var svg bytes.Buffer
	if _, err := canvas.WriteTo(&svg); err != nil {
		return err
	}
	out := bytes.ReplaceAll(svg.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	_, err := w.Write(out)
	return err
}

// Package svgplot holds what the bench module's SVG charts share: a sans
// font with fallbacks, round-number ticks, a white canvas with a margin,
// and a check that the labels of a finished chart are readable.
package svgplot

import (
	"bytes"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Margin keeps labels inside the picture when a viewer substitutes a wider
// font (DejaVu Sans is about 15% wider than Liberation Sans, whose metrics
// gonum lays the labels out with), in points.
const Margin = 14

// Sans is the charts' font: Liberation Sans, which gonum embeds the metrics
// of; WriteSVG names metric-compatible fallbacks.
func Sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// TextStyle is black Sans text of the given size.
func TextStyle(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: Sans(size), Handler: plot.DefaultTextHandler}
}

// Style gives p the charts' fonts (title 11 pt, axis labels 10, ticks 9)
// and round-number ticks on both axes.
func Style(p *plot.Plot) {
	p.Title.TextStyle.Font = Sans(11)
	p.Title.Padding = 4
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Sans(10)
		a.Tick.Label.Font = Sans(9)
		a.Tick.Marker = plot.TickerFunc(RoundTicks)
	}
}

// RoundTicks marks an axis at round numbers: major ticks 1, 2 or 5 × 10^k
// apart, three to eight of them, labelled with only the decimals they need
// (0, 0.5, 1, never 1.00), and unlabelled minor ticks between.
func RoundTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: FormatTick(lo, 0)}}
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
			t.Label = FormatTick(t.Value, decimals)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// FormatTick prints v rounded to decimals, without trailing zeros.
func FormatTick(v float64, decimals int) string {
	p := math.Pow(10, float64(decimals))
	v = math.Round(v*p) / p
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// NewCanvas is an SVG canvas, painted white so that viewers with a dark
// background still show the black text, and the part of it inside the
// margin.
func NewCanvas(width, height vg.Length) (*vgsvg.Canvas, draw.Canvas) {
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: width, Y: 0}, {X: width, Y: height}, {X: 0, Y: height}})
	return c, draw.Crop(dc, Margin, -Margin, Margin/2, -Margin/2)
}

// WriteSVG writes a finished canvas. gonum names the font alone; Arial and
// Helvetica have the same metrics, so viewers without Liberation Sans still
// fit the labels.
func WriteSVG(w io.Writer, canvas *vgsvg.Canvas) error {
	var svg bytes.Buffer
	if _, err := canvas.WriteTo(&svg); err != nil {
		return err
	}
	out := bytes.ReplaceAll(svg.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	_, err := w.Write(out)
	return err
}

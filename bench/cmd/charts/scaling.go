package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// scalingDoc is what cluster/cmd/clusterbench -chart writes: lines of a rate
// against a count, some measured, some simulated, some a fixed level.
type scalingDoc struct {
	Title  string          `json:"title"`
	X      string          `json:"x_label"`
	Y      string          `json:"y_label"`
	Series []scalingSeries `json:"series"`
}

// scalingSeries is one line. Style "measured" draws a solid line with
// dots, "simulated" a dashed one, "ceiling" a grey dotted level. The name's
// first word picks the colour, so "steal measured" and "steal simulated"
// share one.
type scalingSeries struct {
	Name   string       `json:"name"`
	Style  string       `json:"style"`
	Points [][2]float64 `json:"points"`
}

// The scaling chart's geometry, in points: its legend names are longer
// than the other charts'.
const (
	scalingHeight = 420
	scalingLegend = 170
)

// readScaling parses and checks the document: every series has a known
// style and at least one point, every coordinate is positive and finite
// (both axes are logarithmic).
func readScaling(data []byte) (*scalingDoc, error) {
	var doc scalingDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading scaling chart: %w", err)
	}
	if len(doc.Series) == 0 {
		return nil, errors.New("reading scaling chart: no series (want the output of clusterbench -chart)")
	}
	for _, s := range doc.Series {
		switch s.Style {
		case "measured", "simulated", "ceiling":
		default:
			return nil, fmt.Errorf("reading scaling chart: series %q has style %q, want measured, simulated or ceiling", s.Name, s.Style)
		}
		if len(s.Points) == 0 {
			return nil, fmt.Errorf("reading scaling chart: series %q has no points", s.Name)
		}
		for _, p := range s.Points {
			if !(p[0] > 0 && p[1] > 0) || math.IsInf(p[0], 0) || math.IsInf(p[1], 0) {
				return nil, fmt.Errorf("reading scaling chart: series %q has point %v; both axes are logarithmic, so values must be positive", s.Name, p)
			}
		}
	}
	return &doc, nil
}

// drawScaling draws every series on one log-log panel with its legend on
// the right.
func drawScaling(w io.Writer, doc *scalingDoc) error {
	p, legend, err := scalingPlot(doc)
	if err != nil {
		return err
	}
	svg, area := newCanvas(scalingHeight)
	p.Draw(draw.Crop(area, 0, -scalingLegend, 0, 0))
	side := draw.Crop(area, chartWidth-2*margin-scalingLegend+10, 0, 0, -30)
	legend.Draw(side)
	return svgplot.WriteSVG(w, svg)
}

func scalingPlot(doc *scalingDoc) (*plot.Plot, plot.Legend, error) {
	p, legend := newPanel(doc.Title, doc.X, doc.Y)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.TickerFunc(logTicks), plot.TickerFunc(logTicks)
	colours := map[string]color.Color{}
	for _, s := range doc.Series {
		key, _, _ := strings.Cut(s.Name, " ")
		if _, ok := colours[key]; !ok {
			colours[key] = policyColors[len(colours)%len(policyColors)]
		}
		xys := make(plotter.XYs, len(s.Points))
		for i, pt := range s.Points {
			xys[i].X, xys[i].Y = pt[0], pt[1]
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, legend, err
		}
		line.Color, line.Width = colours[key], vg.Points(1.5)
		switch s.Style {
		case "simulated":
			line.Dashes = []vg.Length{6, 3}
		case "ceiling":
			line.Color, line.Dashes, line.Width = color.Gray{Y: 0x70}, []vg.Length{1, 3}, vg.Points(1.5)
		}
		p.Add(line)
		thumbs := []plot.Thumbnailer{line}
		if s.Style == "measured" {
			dots, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, legend, err
			}
			dots.Color, dots.Radius, dots.Shape = line.Color, vg.Points(2.5), draw.CircleGlyph{}
			p.Add(dots)
			thumbs = append(thumbs, dots)
		}
		legend.Add(s.Name, thumbs...)
	}
	return p, legend, nil
}

// logTicks marks a logarithmic axis: labels at 1, 2 and 5 × 10^k (as 2k,
// 50k, 1M), unlabelled minor ticks at the other integers × 10^k.
func logTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for mag := math.Pow(10, math.Floor(math.Log10(lo))); mag <= hi; mag *= 10 {
		for m := 1.0; m < 10; m++ {
			v := m * mag
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = shortNumber(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// shortNumber prints 2000 as 2k and 1000000 as 1M.
func shortNumber(v float64) string {
	switch {
	case v >= 1e6:
		return svgplot.FormatTick(v/1e6, 1) + "M"
	case v >= 1e3:
		return svgplot.FormatTick(v/1e3, 1) + "k"
	}
	return svgplot.FormatTick(v, 2)
}

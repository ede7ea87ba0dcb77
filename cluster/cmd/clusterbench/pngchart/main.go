// Command pngchart draws the chart of clusterbench -compare -chart as a PNG:
// jobs/s against workers on log-log axes, a colour per design, measured
// lines solid with dots, simulated lines dashed. It is a module of its own,
// so that the cluster module needs no plotting library.
//
// From cluster/cmd/clusterbench/pngchart:
//
//	go run . IN.json OUT.png
package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// doc is what clusterbench -chart writes.
type doc struct {
	Title  string `json:"title"`
	X      string `json:"x_label"`
	Y      string `json:"y_label"`
	Series []struct {
		Name   string       `json:"name"`
		Style  string       `json:"style"` // measured, simulated or ceiling
		Points [][2]float64 `json:"points"`
	} `json:"series"`
}

var colours = []color.Color{
	rgb(0x000000), rgb(0xd62728), rgb(0x1f77b4), rgb(0x2ca02c),
	rgb(0xff7f0e), rgb(0x9467bd), rgb(0x17becf), rgb(0x8c564b),
}

// fixed gives the designs of clusterbench the same colour in every chart.
var fixed = map[string]color.Color{
	"steal": rgb(0x000000), "steal-one": rgb(0x8c564b), "no-steal": rgb(0x7f7f7f),
	"central-f1": rgb(0xd62728), "central-f16": rgb(0x1f77b4), "central-async": rgb(0x2ca02c),
	"central-local": rgb(0x9467bd), "central-ledger": rgb(0xff7f0e), "central-pipelined": rgb(0x17becf),
	"steal-mem": rgb(0xe377c2), "steal-bundle": rgb(0xbcbd22), "steal-wq": rgb(0x393b79),
}

func rgb(v uint32) color.Color {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pngchart IN.json OUT.png")
		os.Exit(2)
	}
	if err := draw1(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "pngchart:", err)
		os.Exit(1)
	}
}

func draw1(in, out string) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = d.Title
	p.X.Label.Text, p.Y.Label.Text = d.X, d.Y
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.TickerFunc(logTicks), plot.TickerFunc(logTicks)
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	key := map[string]color.Color{}
	for _, s := range d.Series {
		var xys plotter.XYs
		for _, pt := range s.Points {
			if pt[0] > 0 && pt[1] > 0 && !math.IsInf(pt[0], 0) && !math.IsInf(pt[1], 0) {
				xys = append(xys, plotter.XY{X: pt[0], Y: pt[1]})
			}
		}
		if len(xys) == 0 {
			continue
		}
		k, _, _ := strings.Cut(s.Name, " ")
		if _, ok := key[k]; !ok {
			key[k] = colours[len(key)%len(colours)]
			if c, ok := fixed[k]; ok {
				key[k] = c
			}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		line.Color, line.Width = key[k], vg.Points(1.5)
		thumbs := []plot.Thumbnailer{line}
		switch s.Style {
		case "simulated":
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		case "ceiling":
			line.Color, line.Dashes = color.Gray{Y: 0x70}, []vg.Length{vg.Points(1), vg.Points(3)}
		}
		switch {
		case strings.Contains(s.Name, "processes"):
			line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		case strings.Contains(s.Name, "steals only"):
			line.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		}
		p.Add(line)
		if s.Style == "measured" {
			dots, err := plotter.NewScatter(xys)
			if err != nil {
				return err
			}
			dots.Color, dots.Radius, dots.Shape = line.Color, vg.Points(2.5), draw.CircleGlyph{}
			p.Add(dots)
			thumbs = append(thumbs, dots)
		}
		p.Legend.Add(s.Name, thumbs...)
	}
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(vg.Points(760), vg.Points(480)), vgimg.UseDPI(120))}
	p.Draw(draw.New(c))
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// logTicks labels 1, 2 and 5 × 10^k, with unlabelled ticks between.
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
				t.Label = short(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

func short(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

package main

import (
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette has a distinct color per implementation in implOrder.
var palette = []color.Color{
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, // steal: red
	color.RGBA{0xff, 0x98, 0x96, 0xff}, // steal-join: light red
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

// timeChart draws one panel per workload: a bar per implementation, its
// figure (ms, CPU ms per idle second, bytes per queued task).
func timeChart(results []Result, path string) error {
	wls := workloadsIn(results)
	const cols = 3
	rows := (len(wls) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for k, wl := range wls {
		p := plot.New()
		unit, scale := "ms", 1e6
		switch wl {
		case "idle":
			unit = "CPU ms per idle s"
		case "memory":
			unit, scale = "bytes per queued task", 1
		}
		p.Title.Text = wl
		p.Y.Label.Text = unit
		var names []string
		for _, im := range implOrder {
			r, ok := find(results, wl, im)
			if !ok {
				continue
			}
			idx := len(names)
			name := im
			v := 0.0
			if r.OK {
				v = figure(r) / scale
			} else {
				name += "\n(" + r.Error + ")"
			}
			names = append(names, name)
			bar, err := plotter.NewBarChart(plotter.Values{v}, vg.Points(14))
			if err != nil {
				return err
			}
			bar.XMin = float64(idx)
			bar.Color = implRGB(im)
			bar.LineStyle.Width = 0
			p.Add(bar)
		}
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
		p.Y.Min = 0
		plots[k/cols][k%cols] = p
	}
	img := vgsvg.New(vg.Points(330*cols), vg.Points(270*float64(rows)))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(6)}
	canvases := plot.Align(plots, tiles, dc)
	for j := range plots {
		for i := range plots[j] {
			if plots[j][i] != nil {
				plots[j][i].Draw(canvases[j][i])
			}
		}
	}
	return writeSVG(img, path)
}

// ratioChart draws each implementation's figure over goroutines', per
// workload, on a log scale: below 1 is better than goroutines.
func ratioChart(results []Result, path string) error {
	wls := workloadsIn(results)
	p := plot.New()
	p.Title.Text = "ratio to goroutines (log scale; below 1 is better)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Label.Text = "figure / goroutines' figure"
	lo, hi := 1.0, 1.0
	impls := implsIn(results)
	for n, im := range impls {
		if im == "goroutines" {
			continue
		}
		var pts plotter.XYs
		for k, wl := range wls {
			r, ok := find(results, wl, im)
			if !ok {
				continue
			}
			if x, ok := ratio(results, r); ok && x > 0 {
				off := (float64(n) - float64(len(impls)-1)/2) * 0.08
				pts = append(pts, plotter.XY{X: float64(k) + off, Y: x})
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color = implRGB(im)
		s.GlyphStyle.Shape = plotutil.Shape(implColor(im))
		s.GlyphStyle.Radius = vg.Points(4)
		p.Add(s)
		p.Legend.Add(im, s)
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color = implRGB("goroutines")
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	p.Legend.Add("goroutines = 1", one)
	p.Legend.Top = true
	p.NominalX(wls...)
	p.X.Min, p.X.Max = -0.6, float64(len(wls))+0.9 // room on the right for the legend
	p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	var ticks []plot.Tick
	for e := -4; e <= 3; e++ {
		for _, m := range []float64{1, 3} {
			v := m * math.Pow(10, float64(e))
			if v >= p.Y.Min && v <= p.Y.Max {
				ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%.3g", v)})
			}
		}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid())
	img := vgsvg.New(vg.Points(900), vg.Points(420))
	p.Draw(draw.New(img))
	return writeSVG(img, path)
}

func writeSVG(img *vgsvg.Canvas, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// timelineData is what tracechart draws, read back from the Chrome trace
// JSON that Pool.WriteTrace writes: per worker, task and parked slices, and
// the steals between workers. Times are in milliseconds.
type timelineData struct {
	workers int
	tasks   [][][2]float64 // per worker: [start, end]
	parked  [][][2]float64
	steals  []timelineSteal
	end     float64
}

type timelineSteal struct {
	at            float64
	victim, thief int
	tasks         int
}

// readTimeline parses a trace written by Pool.WriteTrace.
func readTimeline(data []byte) (*timelineData, error) {
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	td := &timelineData{}
	open := map[int][]float64{} // per worker, start times of open slices
	for _, e := range tr.TraceEvents {
		td.workers = max(td.workers, e.Tid+1)
		ms := e.Ts / 1000
		td.end = max(td.end, ms)
		switch e.Ph {
		case "B":
			open[e.Tid] = append(open[e.Tid], ms)
		case "E":
			starts := open[e.Tid]
			if len(starts) == 0 {
				return nil, fmt.Errorf("reading trace: slice end without start on worker %d", e.Tid)
			}
			td.add(e.Name, e.Tid, starts[len(starts)-1], ms)
			open[e.Tid] = starts[:len(starts)-1]
		case "i":
			victim, _ := e.Args["victim"].(float64)
			n, _ := e.Args["tasks"].(float64)
			td.steals = append(td.steals, timelineSteal{at: ms, victim: int(victim), thief: e.Tid, tasks: int(n)})
		}
	}
	return td, nil
}

func (td *timelineData) add(name string, worker int, start, end float64) {
	for len(td.tasks) <= worker {
		td.tasks, td.parked = append(td.tasks, nil), append(td.parked, nil)
	}
	if name == "parked" {
		td.parked[worker] = append(td.parked[worker], [2]float64{start, end})
	} else {
		td.tasks[worker] = append(td.tasks[worker], [2]float64{start, end})
	}
}

// lanes is a gonum plotter that draws one horizontal lane per worker: task
// slices as coloured bars, parked time as grey bars, steals as arrows from
// the victim's lane to the thief's.
type lanes struct{ td *timelineData }

func (l lanes) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, l.td.end, -0.5, float64(l.td.workers) - 0.5
}

func (l lanes) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	bar := func(worker int, s [2]float64, half float64, col color.Color) {
		x0, x1 := x(s[0]), max(x(s[1]), x(s[0])+0.3) // keep the shortest task visible
		y0, y1 := y(float64(worker)-half), y(float64(worker)+half)
		c.FillPolygon(col, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
	for w := range l.td.tasks {
		for _, s := range l.td.parked[w] {
			bar(w, s, 0.12, color.Gray{Y: 0xc8})
		}
		for _, s := range l.td.tasks[w] {
			bar(w, s, 0.35, palette[w%len(palette)])
		}
	}
	arrow := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
	for _, s := range l.td.steals {
		from, to := vg.Point{X: x(s.at), Y: y(float64(s.victim))}, vg.Point{X: x(s.at), Y: y(float64(s.thief))}
		c.StrokeLines(arrow, c.ClipLinesXY([]vg.Point{from, to})...)
		dir := vg.Length(1)
		if to.Y < from.Y {
			dir = -1
		}
		head := []vg.Point{{X: to.X - 3, Y: to.Y - dir*5}, to, {X: to.X + 3, Y: to.Y - dir*5}}
		c.StrokeLines(arrow, c.ClipLinesXY(head)...)
	}
}

// writeTimelineChart draws the trace as one SVG: a lane per worker over
// wall time.
func writeTimelineChart(w io.Writer, trace []byte, title string) error {
	td, err := readTimeline(trace)
	if err != nil {
		return err
	}
	p, _ := newPanel(title, "")
	p.X.Label.Text = "time since the pool started (ms)"
	p.Add(lanes{td})
	ticks := make([]plot.Tick, td.workers)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i), Label: fmt.Sprintf("worker %d", i)}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	height := vg.Length(90 + 40*td.workers)
	canvas := vgsvg.New(chartWidth, height)
	p.Draw(draw.New(canvas))
	return writeSVG(w, canvas)
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

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

// timeline is what the timeline chart draws, read back from the Chrome
// trace JSON that steal's Pool.WriteTrace writes: per worker, task and
// parked slices, and the steals between workers. Times are in ms.
type timeline struct {
	title   string // the trace's otherData title, if any
	workers int
	tasks   [][][2]float64 // per worker: [start, end]
	parked  [][][2]float64
	steals  []steal
	end     float64
}

type steal struct {
	at            float64
	victim, thief int
	tasks         int
}

type traceEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // µs
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args"`
}

// maxWorkers bounds the lanes a trace may ask for, so that a corrupt
// thread id cannot make the chart allocate without limit.
const maxWorkers = 4096

// readTimeline parses a trace written by Pool.WriteTrace.
func readTimeline(data []byte) (*timeline, error) {
	var tr struct {
		OtherData   map[string]any `json:"otherData"`
		TraceEvents []traceEvent   `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, fmt.Errorf("reading trace: %w", err)
	}
	tl := &timeline{}
	tl.title, _ = tr.OtherData["title"].(string)
	open := map[int][]float64{} // per worker, start times of open slices
	for _, e := range tr.TraceEvents {
		if e.Tid < 0 || e.Tid >= maxWorkers {
			return nil, fmt.Errorf("reading trace: thread id %d is not a worker (0 to %d)", e.Tid, maxWorkers-1)
		}
		tl.grow(e.Tid + 1)
		ms := e.Ts / 1000
		tl.end = max(tl.end, ms)
		switch e.Ph {
		case "B":
			open[e.Tid] = append(open[e.Tid], ms)
		case "E":
			starts := open[e.Tid]
			if len(starts) == 0 {
				return nil, fmt.Errorf("reading trace: slice end without start on worker %d at %v ms", e.Tid, ms)
			}
			tl.add(e.Name, e.Tid, starts[len(starts)-1], ms)
			open[e.Tid] = starts[:len(starts)-1]
		case "i":
			if err := tl.addSteal(e, ms); err != nil {
				return nil, err
			}
		}
	}
	if tl.workers == 0 {
		return nil, errors.New("reading trace: no events (was the pool made with steal.WithTimeline?)")
	}
	return tl, nil
}

func (tl *timeline) grow(workers int) {
	for tl.workers < workers {
		tl.tasks, tl.parked = append(tl.tasks, nil), append(tl.parked, nil)
		tl.workers++
	}
}

func (tl *timeline) add(name string, worker int, start, end float64) {
	if name == "parked" {
		tl.parked[worker] = append(tl.parked[worker], [2]float64{start, end})
	} else {
		tl.tasks[worker] = append(tl.tasks[worker], [2]float64{start, end})
	}
}

func (tl *timeline) addSteal(e traceEvent, ms float64) error {
	victim, ok := e.Args["victim"].(float64)
	if !ok || victim < 0 || victim >= maxWorkers {
		return fmt.Errorf("reading trace: steal at %v ms on worker %d has no valid victim", ms, e.Tid)
	}
	n, _ := e.Args["tasks"].(float64)
	tl.grow(int(victim) + 1)
	tl.steals = append(tl.steals, steal{at: ms, victim: int(victim), thief: e.Tid, tasks: int(n)})
	return nil
}

// lanes is a gonum plotter that draws one horizontal lane per worker: task
// slices as bars in the worker's colour, parked time as thin grey bars,
// steals as arrows from the victim's lane to the thief's.
type lanes struct{ tl *timeline }

func (l lanes) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, l.tl.end, -0.5, float64(l.tl.workers) - 0.5
}

func (l lanes) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	bar := func(worker int, s [2]float64, half float64, col color.Color) {
		x0, x1 := x(s[0]), max(x(s[1]), x(s[0])+0.3) // keep the shortest task visible
		y0, y1 := y(float64(worker)-half), y(float64(worker)+half)
		c.FillPolygon(col, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
	for w := range l.tl.workers {
		for _, s := range l.tl.parked[w] {
			bar(w, s, 0.12, parkedColor)
		}
		for _, s := range l.tl.tasks[w] {
			bar(w, s, 0.35, workerColor(w))
		}
	}
	label := l.labelSteals()
	count := svgplot.TextStyle(7)
	count.YAlign = draw.YCenter
	for _, s := range l.tl.steals {
		from, to := vg.Point{X: x(s.at), Y: y(float64(s.victim))}, vg.Point{X: x(s.at), Y: y(float64(s.thief))}
		drawArrow(&c, from, to)
		if label && s.tasks > 0 { // in the gap beside the thief's lane
			gap := float64(s.thief) - 0.5
			if s.victim > s.thief {
				gap = float64(s.thief) + 0.5
			}
			c.FillText(count, vg.Point{X: to.X + 2, Y: y(gap)}, strconv.Itoa(s.tasks))
		}
	}
}

// labelSteals says whether the arrows have room for the count of tasks
// each steal moved: with many steals the numbers would overlap.
func (l lanes) labelSteals() bool { return len(l.tl.steals) <= 30 }

// drawArrow draws a steal: a line from the victim's lane to the thief's,
// with its head at the thief.
func drawArrow(c *draw.Canvas, from, to vg.Point) {
	style := draw.LineStyle{Color: stealColor, Width: vg.Points(0.8)}
	c.StrokeLines(style, c.ClipLinesXY([]vg.Point{from, to})...)
	dir := vg.Length(1)
	if to.Y < from.Y {
		dir = -1
	}
	head := []vg.Point{{X: to.X - 3, Y: to.Y - dir*5}, to, {X: to.X + 3, Y: to.Y - dir*5}}
	c.StrokeLines(style, c.ClipLinesXY(head)...)
}

// swatch is a legend thumbnail: a bar per colour, side by side.
type swatch struct {
	colors []color.Color
	height float64 // share of the entry's height
}

func (s swatch) Thumbnail(c *draw.Canvas) {
	w := (c.Max.X - c.Min.X) / vg.Length(len(s.colors))
	mid, half := (c.Min.Y+c.Max.Y)/2, (c.Max.Y-c.Min.Y)*vg.Length(s.height)/2
	for i, col := range s.colors {
		x0 := c.Min.X + vg.Length(i)*w
		c.FillPolygon(col, []vg.Point{{X: x0, Y: mid - half}, {X: x0 + w, Y: mid - half}, {X: x0 + w, Y: mid + half}, {X: x0, Y: mid + half}})
	}
}

// arrowThumb is the legend's steal: an arrow pointing up.
type arrowThumb struct{}

func (arrowThumb) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.X + c.Max.X) / 2
	drawArrow(c, vg.Point{X: mid, Y: c.Min.Y - 2}, vg.Point{X: mid, Y: c.Max.Y + 2})
}

// numberThumb is the legend's example of a steal's label.
type numberThumb string

func (n numberThumb) Thumbnail(c *draw.Canvas) {
	sty := svgplot.TextStyle(7)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}, string(n))
}

// drawTimeline draws tl as one SVG: a lane per worker over wall time, and
// a legend on the right. title, when not empty, replaces the trace's own.
func drawTimeline(w io.Writer, tl *timeline, title string) error {
	if title == "" {
		title = tl.title
	}
	if title == "" {
		title = fmt.Sprintf("steal timeline: %d workers", tl.workers)
	}
	p, legend := newPanel(title, "time since the pool started (ms)", "")
	p.Add(lanes{tl})
	p.X.Min, p.X.Max = 0, max(tl.end, 1e-3)
	ticks := make([]plot.Tick, tl.workers)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i), Label: fmt.Sprintf("worker %d", i)}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	// No axis line or tick marks: the labels name the lanes, and a viewer
	// that draws them in a font wider than gonum measured with may run
	// them a few points to the right, into the gap before the data.
	p.Y.LineStyle.Width, p.Y.Tick.LineStyle.Width = 0, 0
	p.Y.Padding = 8
	legend.Padding = 6

	taskColors := workerColors[:min(tl.workers, len(workerColors))]
	legend.Add("task, by worker", swatch{taskColors, 0.7})
	legend.Add("parked", swatch{[]color.Color{parkedColor}, 0.25})
	legend.Add("steal: victim → thief", arrowThumb{})
	if (lanes{tl}).labelSteals() {
		legend.Add("tasks it moved", numberThumb("5"))
	}

	svg, area := newCanvas(vg.Length(100 + 40*tl.workers))
	p.Draw(draw.Crop(area, 0, -legendWidth, 0, 0))
	side := draw.Crop(area, chartWidth-2*margin-legendWidth+10, 0, 0, -30) // below the title
	legend.Draw(side)
	return svgplot.WriteSVG(w, svg)
}

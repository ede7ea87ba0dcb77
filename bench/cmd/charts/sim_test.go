package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// sampleSim is steal sim -json -samples output in short: 2 workers, 4 jobs
// of 1 ms on worker 0; half/random ends at 2 ms, none at 4 ms (twice as
// long, so on the same time axis), central at 10 ms (own axis).
func sampleSim(workers int) string {
	queues := func(w0 int) string {
		q := make([]string, workers)
		for i := range q {
			q[i] = "0"
		}
		q[0] = fmt.Sprint(w0)
		return "[" + strings.Join(q, ",") + "]"
	}
	sample := func(at float64, w0, central int, u float64) string {
		return fmt.Sprintf(`{"at_ms":%v,"queues":%s,"central":%d,"utilisation":%v}`, at, queues(w0), central, u)
	}
	return fmt.Sprintf(`{"workers":%d,"jobs":4,"distribution":"first","cost":"fixed","mean_ms":1,"steal_latency_ms":0.25,"seed":7,"results":[
{"policy":"none","makespan_ms":4,"lower_bound_ms":2,"makespan_ratio":2,"utilisation":0.5,"samples":[%s,%s,%s]},
{"policy":"half/random","makespan_ms":2,"lower_bound_ms":2,"makespan_ratio":1,"utilisation":1,"samples":[%s,%s]},
{"policy":"central","makespan_ms":10,"lower_bound_ms":2,"makespan_ratio":5,"utilisation":0.2,"samples":[%s,%s]}]}`,
		workers,
		sample(0, 3, 0, 0.5), sample(2, 1, 0, 0.5), sample(4, 0, 0, 0.5),
		sample(0, 1, 0, 1), sample(2, 0, 0, 1),
		sample(0, 0, 2, 1), sample(10, 0, 0, 0.2))
}

func TestSimPanelsShareScales(t *testing.T) {
	doc, err := readSim([]byte(sampleSim(2)))
	if err != nil {
		t.Fatal(err)
	}
	plots, legends, err := simPanels(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 4 || len(legends) != 4 {
		t.Fatalf("%d panels, %d legends, want 3 policies and utilisation", len(plots), len(legends))
	}
	none, half, central, util := plots[0][0], plots[1][0], plots[2][0], plots[3][0]
	for i, p := range []struct{ min, max float64 }{{none.Y.Min, none.Y.Max}, {half.Y.Min, half.Y.Max}, {central.Y.Min, central.Y.Max}} {
		if p.min != 0 || p.max != 3 {
			t.Errorf("panel %d: queue axis %v to %v, want the common 0 to 3", i, p.min, p.max)
		}
	}
	if none.X.Max != 4 || half.X.Max != 4 || util.X.Max != 4 || central.X.Max != 10 {
		t.Errorf("time axes end at %v, %v, %v and %v, want 4 for all but central's own 10",
			none.X.Max, half.X.Max, util.X.Max, central.X.Max)
	}
	if strings.Contains(none.Title.Text, "own time axis") || !strings.Contains(central.Title.Text, "own time axis, 2.5× longer") {
		t.Errorf("titles %q and %q: only central's should say its axis is its own", none.Title.Text, central.Title.Text)
	}
}

func TestSimChart(t *testing.T) {
	for _, workers := range []int{2, 12} {
		doc, err := readSim([]byte(sampleSim(workers)))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := drawSim(&out, doc); err != nil {
			t.Fatal(err)
		}
		svg := out.Bytes()
		checkLabels(t, svg)
		want := []string{
			fmt.Sprintf(">steal sim: 4 jobs (fixed, mean 1 ms, start: first) on %d workers, steal latency 0.25 ms, seed 7<", workers),
			">none: makespan 4 ms (2.00× bound), utilisation 50.0%", ">half/random: makespan 2 ms (1.00× bound)",
			">central queue<", ">lower bound<", ">utilisation (%)<", ">central (to 10 ms)<", "longer runs are cut off",
		}
		if workers > chartWorkers {
			want = append(want, "; workers 0-7 of 12", ">max of all 12<", ">mean of all 12<")
		} else {
			want = append(want, ">worker 1<")
		}
		for _, w := range want {
			if !bytes.Contains(svg, []byte(w)) {
				t.Errorf("%d workers: chart lacks %q", workers, w)
			}
		}
	}
}

func TestReadSimRejects(t *testing.T) {
	noSamples := `{"workers":2,"results":[{"policy":"none","makespan_ms":1}]}`
	for _, tc := range []struct{ doc, err string }{
		{noSamples, `policy "none" has no samples (run steal sim with -json -samples)`},
		{`{"workers":2,"results":[]}`, "no workers or no results"},
		{`{"workers":0,"results":[{"policy":"none"}]}`, "no workers or no results"},
		{strings.Replace(sampleSim(2), `"queues":[3,0]`, `"queues":[3]`, 1), `policy "none" has a sample at 0 ms with 1 queues for 2 workers`},
		{`[1,2]`, "reading simulation: json: cannot unmarshal array"},
	} {
		if _, err := readSim([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("error %v, want one containing %q", err, tc.err)
		}
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"
)

// sampleTrace is what Pool.WriteTrace writes, in short: two workers over
// 4 ms, one task and one park on worker 0, a steal of 3 tasks by worker 1,
// and the otherData that steal demo adds.
const sampleTrace = `{"otherData":{"title":"steal demo: sample"},"displayTimeUnit":"ns","traceEvents":[
{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":0,"args":{"name":"worker 0"}},
{"name":"task","ph":"B","ts":1000,"pid":1,"tid":0},
{"name":"task","ph":"E","ts":3000,"pid":1,"tid":0},
{"name":"parked","ph":"B","ts":3000,"pid":1,"tid":0},
{"name":"parked","ph":"E","ts":4000,"pid":1,"tid":0},
{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"worker 1"}},
{"name":"steal","ph":"s","ts":1500,"pid":1,"tid":0,"id":1},
{"name":"steal","ph":"f","bp":"e","ts":1500,"pid":1,"tid":1,"id":1},
{"name":"steal","ph":"i","s":"t","ts":1500,"pid":1,"tid":1,"args":{"victim":0,"thief":1,"tasks":3}},
{"name":"task","ph":"B","ts":1500,"pid":1,"tid":1},
{"name":"task","ph":"E","ts":2500,"pid":1,"tid":1}]}`

func TestReadTimeline(t *testing.T) {
	tl, err := readTimeline([]byte(sampleTrace))
	if err != nil {
		t.Fatal(err)
	}
	if tl.workers != 2 || tl.end != 4 || tl.title != "steal demo: sample" {
		t.Fatalf("workers %d end %v title %q, want 2, 4 ms and the otherData title", tl.workers, tl.end, tl.title)
	}
	if got := tl.tasks[0]; len(got) != 1 || got[0] != [2]float64{1, 3} {
		t.Fatalf("worker 0 tasks %v", got)
	}
	if got := tl.parked[0]; len(got) != 1 || got[0] != [2]float64{3, 4} {
		t.Fatalf("worker 0 parked %v", got)
	}
	if len(tl.steals) != 1 || tl.steals[0] != (steal{at: 1.5, victim: 0, thief: 1, tasks: 3}) {
		t.Fatalf("steals %+v", tl.steals)
	}
}

func TestReadTimelineRejects(t *testing.T) {
	for _, tc := range []struct{ trace, err string }{
		{`{"traceEvents":[{"name":"task","ph":"E","ts":1,"tid":0}]}`, "slice end without start on worker 0"},
		{`{"traceEvents":[]}`, "no events"},
		{`{"traceEvents":[{"name":"task","ph":"B","ts":1,"tid":-1}]}`, "thread id -1 is not a worker"},
		{`{"traceEvents":[{"name":"task","ph":"B","ts":1,"tid":99999999}]}`, "thread id 99999999 is not a worker"},
		{`{"traceEvents":[{"name":"steal","ph":"i","ts":1,"tid":0,"args":{"tasks":2}}]}`, "no valid victim"},
		{`{"traceEvents":`, "reading trace: unexpected end of JSON input"},
	} {
		if _, err := readTimeline([]byte(tc.trace)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one containing %q", tc.trace, err, tc.err)
		}
	}
}

func TestTimelineChart(t *testing.T) {
	tl, err := readTimeline([]byte(sampleTrace))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := drawTimeline(&out, tl, ""); err != nil {
		t.Fatal(err)
	}
	svg := out.Bytes()
	checkLabels(t, svg)
	for _, want := range []string{">steal demo: sample<", ">worker 0<", ">worker 1<", ">steal: victim → thief<",
		">parked<", ">3<", ">tasks it moved<", "time since the pool started (ms)"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}
	// The same trace shrunk to 0.45 ms and to 45 µs: still no "0.0".
	for _, zeros := range []string{"0", ""} {
		short := strings.NewReplacer(`"ts":1000`, `"ts":10`+zeros, `"ts":3000`, `"ts":30`+zeros, `"ts":4000`, `"ts":45`+zeros,
			`"ts":1500`, `"ts":15`+zeros, `"ts":2500`, `"ts":25`+zeros).Replace(sampleTrace)
		tl, err := readTimeline([]byte(short))
		if err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := drawTimeline(&out, tl, ""); err != nil {
			t.Fatal(err)
		}
		checkLabels(t, out.Bytes())
	}
	// -title replaces the recorded title.
	out.Reset()
	if err := drawTimeline(&out, tl, "mine"); err != nil || !bytes.Contains(out.Bytes(), []byte(">mine<")) {
		t.Errorf("title not replaced: %v", err)
	}
}

func TestTimelineChartManySteals(t *testing.T) {
	tl := &timeline{workers: 3, tasks: make([][][2]float64, 3), parked: make([][][2]float64, 3), end: 10}
	for i := range 100 {
		tl.steals = append(tl.steals, steal{at: float64(i) / 10, victim: i % 3, thief: (i + 1) % 3, tasks: 7})
	}
	var out bytes.Buffer
	if err := drawTimeline(&out, tl, ""); err != nil {
		t.Fatal(err)
	}
	// Too many steals to label each: no counts, and the legend says none.
	if bytes.Contains(out.Bytes(), []byte(">7<")) || bytes.Contains(out.Bytes(), []byte("tasks it moved")) {
		t.Error("100 steals labelled one by one")
	}
	if !bytes.Contains(out.Bytes(), []byte(">steal timeline: 3 workers<")) {
		t.Error("no default title")
	}
}

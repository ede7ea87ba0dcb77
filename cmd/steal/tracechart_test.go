package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleTrace = `{"displayTimeUnit":"ns","traceEvents":[
{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":0,"args":{"name":"worker 0"}},
{"name":"task","ph":"B","ts":1000,"pid":1,"tid":0},
{"name":"task","ph":"E","ts":3000,"pid":1,"tid":0},
{"name":"parked","ph":"B","ts":3000,"pid":1,"tid":0},
{"name":"parked","ph":"E","ts":4000,"pid":1,"tid":0},
{"name":"thread_name","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"worker 1"}},
{"name":"steal","ph":"i","s":"t","ts":1500,"pid":1,"tid":1,"args":{"victim":0,"thief":1,"tasks":3}},
{"name":"task","ph":"B","ts":1500,"pid":1,"tid":1},
{"name":"task","ph":"E","ts":2500,"pid":1,"tid":1}]}`

func TestReadTimeline(t *testing.T) {
	td, err := readTimeline([]byte(sampleTrace))
	if err != nil {
		t.Fatal(err)
	}
	if td.workers != 2 || td.end != 4 {
		t.Fatalf("workers %d end %v, want 2 and 4 ms", td.workers, td.end)
	}
	if got := td.tasks[0]; len(got) != 1 || got[0] != [2]float64{1, 3} {
		t.Fatalf("worker 0 tasks %v", got)
	}
	if got := td.parked[0]; len(got) != 1 || got[0] != [2]float64{3, 4} {
		t.Fatalf("worker 0 parked %v", got)
	}
	if len(td.steals) != 1 || td.steals[0] != (timelineSteal{at: 1.5, victim: 0, thief: 1, tasks: 3}) {
		t.Fatalf("steals %+v", td.steals)
	}
	if _, err := readTimeline([]byte(`{"traceEvents":[{"name":"task","ph":"E","ts":1,"tid":0}]}`)); err == nil {
		t.Fatal("an end without a start was accepted")
	}
}

func TestTimelineChartIsOneSVG(t *testing.T) {
	var out bytes.Buffer
	if err := writeTimelineChart(&out, []byte(sampleTrace), "sample"); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(out.Bytes(), new(struct{})); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	for _, want := range []string{"<svg", "worker 0", "worker 1", "sample"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("chart lacks %q", want)
		}
	}
}

func TestDemoTraceSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.svg")
	var out, errOut bytes.Buffer
	if code := run([]string{"demo", "-workers", "2", "-tasks", "20", "-size", "1000", "-every", "1s", "-trace-svg", path},
		nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Fatalf("no SVG written: %v", err)
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"
)

// sampleScaling is clusterbench -chart output in short.
const sampleScaling = `{"title":"1 ms jobs","x_label":"workers","y_label":"jobs/s","series":[
{"name":"steal measured","style":"measured","points":[[2,1000],[4,1900]]},
{"name":"steal simulated","style":"simulated","points":[[2,2000],[1000,900000]]},
{"name":"central-f1 simulated","style":"simulated","points":[[2,1800],[1000,5500]]},
{"name":"steal no-op ceiling","style":"ceiling","points":[[2,4000],[1000,4000]]}]}`

func TestScalingChart(t *testing.T) {
	var out bytes.Buffer
	if err := render("scaling", []byte(sampleScaling), "", &out); err != nil {
		t.Fatal(err)
	}
	doc := out.String()
	for _, want := range []string{"steal measured", "central-f1 simulated", "steal no-op ceiling", "1 ms jobs", "1k", "500k"} {
		if !strings.Contains(doc, ">"+want+"<") {
			t.Errorf("chart lacks the text %q", want)
		}
	}
	checkLabels(t, out.Bytes())
}

// Both axes are logarithmic: a series one cannot draw there is refused,
// with the series named, and nothing is written.
func TestReadScalingRejects(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"series":[]}`, "no series"},
		{`{"series":[{"name":"a","style":"bar","points":[[1,1]]}]}`, `"a" has style "bar"`},
		{`{"series":[{"name":"a","style":"measured","points":[]}]}`, `"a" has no points`},
		{`{"series":[{"name":"a","style":"measured","points":[[2,0]]}]}`, "must be positive"},
		{`{"series":`, "reading scaling chart"},
	} {
		var out bytes.Buffer
		err := render("scaling", []byte(c.doc), "", &out)
		if err == nil || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("%s: err %v, %d bytes written; want an error containing %q and nothing written", c.doc, err, out.Len(), c.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range logTicks(2, 1000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "2 5 10 20 50 100 200 500 1k" {
		t.Errorf("labels %q", got)
	}
}

package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/cluster"
	"github.com/worksteal/steal/sim"
)

func TestChartSamplingIsBounded(t *testing.T) {
	for _, workers := range []int{1, 8, 64, 10_000} {
		wl := sim.Workload{Workers: workers, Jobs: 5000, Distribution: cluster.First,
			Cost: sim.Cost{Model: sim.Exponential, Mean: time.Millisecond}, Seed: 1}
		wl.Sample = chartSampling(wl)
		if wl.Sample.Every <= 0 || wl.Sample.Max > 1000 || wl.Sample.Max*workers > max(4<<20, 2*workers) {
			t.Fatalf("%d workers: sampling %+v", workers, wl.Sample)
		}
		for _, r := range wl.Compare([]sim.Policy{{Mode: sim.NoSteal}, {Mode: sim.StealHalf}}) {
			if n := len(r.Samples); n < 2 || n > wl.Sample.Max {
				t.Errorf("%d workers, %v: %d samples, max %d", workers, r.Policy, n, wl.Sample.Max)
			}
		}
	}
	// No jobs: still a positive interval.
	if s := chartSampling(sim.Workload{Workers: 4}); s.Every <= 0 {
		t.Errorf("empty workload: sampling %+v", s)
	}
}

// wellFormed reports whether doc parses as XML from start to end.
func wellFormed(doc []byte) error {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		if _, err := d.Token(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func TestWriteChart(t *testing.T) {
	for _, tc := range []struct {
		name string
		wl   sim.Workload
	}{
		{"first", sim.Workload{Workers: 20, Jobs: 500, Distribution: cluster.First,
			Cost: sim.Cost{Model: sim.Pareto, Mean: time.Millisecond}, StealLatency: 50 * time.Microsecond, Seed: 3}},
		{"empty", sim.Workload{Workers: 2, Cost: sim.Cost{Mean: time.Millisecond}}},
	} {
		tc.wl.Sample = chartSampling(tc.wl)
		results := tc.wl.Compare(sim.AllPolicies())
		var buf bytes.Buffer
		if err := writeChart(&buf, results); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		svg := buf.Bytes()
		if err := wellFormed(svg); err != nil {
			t.Fatalf("%s: not well-formed XML: %v", tc.name, err)
		}
		if n := bytes.Count(svg, []byte("<svg")); n != 1 {
			t.Errorf("%s: %d <svg> elements, want one document", tc.name, n)
		}
		for _, p := range sim.AllPolicies() {
			if !bytes.Contains(svg, []byte(">"+p.String()+": makespan")) {
				t.Errorf("%s: no panel titled %v", tc.name, p)
			}
		}
		if !strings.Contains(buf.String(), "utilisation (%)") || !strings.Contains(buf.String(), "sans-serif") {
			t.Errorf("%s: no utilisation panel or no font fallback", tc.name)
		}
	}
}

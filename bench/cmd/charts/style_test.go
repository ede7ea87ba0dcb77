package main

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestRoundTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string // the labelled ticks
	}{
		{0, 61, "0 20 40 60"},
		{0, 2.4, "0 0.5 1 1.5 2"},
		{0, 0.061, "0 0.02 0.04 0.06"},
		{0, 1920, "0 500 1000 1500"},
		{0, 240.8, "0 50 100 150 200"},
		{0.2, 1.1, "0.2 0.4 0.6 0.8 1"},
		{5, 5, "5"},
	} {
		var got []string
		for _, tick := range roundTicks(tc.lo, tc.hi) {
			if tick.Label != "" {
				got = append(got, tick.Label)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("roundTicks(%v, %v) = %v, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
	// Any span: three to eight labels, none with a trailing zero after the
	// point, all inside the range.
	for hi := 1e-3; hi < 1e6; hi *= 1.37 {
		n := 0
		for _, tick := range roundTicks(0, hi) {
			if tick.Value < 0 || tick.Value > hi*(1+1e-9) {
				t.Fatalf("roundTicks(0, %v): tick %v outside", hi, tick.Value)
			}
			if tick.Label == "" {
				continue
			}
			n++
			if strings.Contains(tick.Label, ".") && strings.HasSuffix(tick.Label, "0") {
				t.Fatalf("roundTicks(0, %v): label %q", hi, tick.Label)
			}
		}
		if n < 3 || n > 8 {
			t.Fatalf("roundTicks(0, %v): %d labels", hi, n)
		}
	}
}

// distance is the Euclidean distance of two colours in RGB.
func distance(a, b color.Color) float64 {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) float64 { return (float64(x) - float64(y)) / 257 }
	return math.Sqrt(d(r1, r2)*d(r1, r2) + d(g1, g2)*d(g1, g2) + d(b1, b2)*d(b1, b2))
}

func TestColoursAreDistinct(t *testing.T) {
	for _, set := range []struct {
		name   string
		colors []color.Color
	}{{"worker", workerColors}, {"policy", policyColors}} {
		for i := range set.colors {
			for j := range i {
				if d := distance(set.colors[i], set.colors[j]); d < 60 {
					t.Errorf("%s colours %d and %d are %.0f apart", set.name, j, i, d)
				}
			}
		}
	}
	// A policy's line in the utilisation panel must not look like the
	// worker of the same index in the panels above it.
	for i := range min(len(policyColors), len(workerColors)) {
		if d := distance(policyColors[i], workerColors[i]); d < 60 {
			t.Errorf("policy colour %d is %.0f from worker colour %d", i, d, i)
		}
	}
	for i := range policyDashes {
		for j := range i {
			if slices.Equal(policyDashes[i], policyDashes[j]) {
				t.Errorf("policies %d and %d have the same dashes", i, j)
			}
		}
	}
}

// svgText is one <text> element of a gonum SVG.
type svgText struct {
	x, y, size float64
	rotated    bool // in a rotated group: x and y are not the page's
	text       string
}

var (
	fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)
	svgSizeRE  = regexp.MustCompile(`<svg[^>]*width="([0-9.]+)pt"`)
)

// texts parses doc as XML (failing on malformed documents) and returns its
// text elements and the document's width in points.
func texts(t *testing.T, doc []byte) ([]svgText, float64) {
	t.Helper()
	var out []svgText
	var rotations []bool // per open <g>: whether it rotates
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if end, ok := tok.(xml.EndElement); ok && end.Name.Local == "g" {
			rotations = rotations[:len(rotations)-1]
		}
		start, ok := tok.(xml.StartElement)
		if ok && start.Name.Local == "g" {
			rotates := false
			for _, a := range start.Attr {
				rotates = rotates || a.Name.Local == "transform" && strings.Contains(a.Value, "rotate")
			}
			rotations = append(rotations, rotates)
		}
		if !ok || start.Name.Local != "text" {
			continue
		}
		e := svgText{rotated: slices.Contains(rotations, true)}
		for _, a := range start.Attr {
			switch a.Name.Local {
			case "x":
				e.x, _ = strconv.ParseFloat(a.Value, 64)
			case "y":
				e.y, _ = strconv.ParseFloat(a.Value, 64)
			case "style":
				if m := fontSizeRE.FindStringSubmatch(a.Value); m != nil {
					e.size, _ = strconv.ParseFloat(m[1], 64)
				}
			}
		}
		var body string
		if err := d.DecodeElement(&body, &start); err != nil {
			t.Fatal(err)
		}
		e.text = body
		out = append(out, e)
	}
	m := svgSizeRE.FindSubmatch(doc)
	if m == nil {
		t.Fatalf("no width on the <svg> element: %.200s", doc)
	}
	width, _ := strconv.ParseFloat(string(m[1]), 64)
	return out, width
}

// checkTextFits fails when a label starts left of the picture or, drawn in
// DejaVu Sans (about 0.55 em a character, some 15% wider than the Liberation
// Sans gonum measures with), would run past its right edge.
func checkTextFits(t *testing.T, doc []byte) {
	t.Helper()
	els, width := texts(t, doc)
	if len(els) == 0 {
		t.Fatal("no text in the chart")
	}
	for _, e := range els {
		if e.rotated {
			continue
		}
		end := e.x + 0.55*e.size*float64(len([]rune(e.text)))
		if e.x < 1 || end > width {
			t.Errorf("label %q spans x %.1f to about %.1f, outside 0 to %.0f", e.text, e.x, end, width)
		}
	}
}

// checkTickLabels fails on a numeric label with a trailing zero after the
// decimal point, such as 30.00.
func checkTickLabels(t *testing.T, doc []byte) {
	t.Helper()
	els, _ := texts(t, doc)
	for _, e := range els {
		if _, err := strconv.ParseFloat(e.text, 64); err == nil &&
			strings.Contains(e.text, ".") && strings.HasSuffix(e.text, "0") {
			t.Errorf("tick label %q", e.text)
		}
	}
}

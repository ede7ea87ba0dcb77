package svgplot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Label is one <text> element of a gonum SVG.
type Label struct {
	X, Y, Size float64
	Rotated    bool // in a rotated group: X and Y are not the page's
	Text       string
}

var (
	fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)
	svgWidthRE = regexp.MustCompile(`<svg[^>]*width="([0-9.]+)pt"`)
)

// Labels parses doc, which must be well-formed XML, and returns its text
// elements and the document's width in points.
func Labels(doc []byte) ([]Label, float64, error) {
	var out []Label
	var rotations []bool // per open <g>: whether it rotates
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("not well-formed XML: %w", err)
		}
		if end, ok := tok.(xml.EndElement); ok && end.Name.Local == "g" {
			rotations = rotations[:len(rotations)-1]
		}
		start, ok := tok.(xml.StartElement)
		if ok && start.Name.Local == "g" {
			rotations = append(rotations, strings.Contains(attr(start, "transform"), "rotate"))
		}
		if !ok || start.Name.Local != "text" {
			continue
		}
		l := Label{Rotated: slices.Contains(rotations, true)}
		l.X, _ = strconv.ParseFloat(attr(start, "x"), 64)
		l.Y, _ = strconv.ParseFloat(attr(start, "y"), 64)
		if m := fontSizeRE.FindStringSubmatch(attr(start, "style")); m != nil {
			l.Size, _ = strconv.ParseFloat(m[1], 64)
		}
		if err := d.DecodeElement(&l.Text, &start); err != nil {
			return nil, 0, err
		}
		out = append(out, l)
	}
	m := svgWidthRE.FindSubmatch(doc)
	if m == nil {
		return nil, 0, errors.New("no width on the <svg> element")
	}
	width, err := strconv.ParseFloat(string(m[1]), 64)
	return out, width, err
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// Problems lists what makes a chart's labels hard to read: a label that
// starts left of the picture or, drawn in DejaVu Sans (about 0.55 em a
// character, some 15% wider than the Liberation Sans gonum measures with),
// would run past its right edge; and a number with a trailing zero after
// its decimal point, such as 30.00. Rotated labels are not placed.
func Problems(doc []byte) ([]string, error) {
	labels, width, err := Labels(doc)
	if err != nil {
		return nil, err
	}
	if len(labels) == 0 {
		return []string{"no text in the chart"}, nil
	}
	var out []string
	for _, l := range labels {
		end := l.X + 0.55*l.Size*float64(len([]rune(l.Text)))
		if !l.Rotated && (l.X < 1 || end > width) {
			out = append(out, fmt.Sprintf("label %q spans x %.1f to about %.1f, outside 0 to %.0f", l.Text, l.X, end, width))
		}
		if _, err := strconv.ParseFloat(l.Text, 64); err == nil && strings.Contains(l.Text, ".") && strings.HasSuffix(l.Text, "0") {
			out = append(out, fmt.Sprintf("tick label %q", l.Text))
		}
	}
	return out, nil
}

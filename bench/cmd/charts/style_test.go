package main

import (
	"image/color"
	"math"
	"slices"
	"testing"

	"github.com/worksteal/steal/bench/internal/svgplot"
)

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

// checkLabels fails on every problem svgplot.Problems finds in doc.
func checkLabels(t *testing.T, doc []byte) {
	t.Helper()
	problems, err := svgplot.Problems(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

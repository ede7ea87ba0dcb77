package main

import (
	"slices"
	"testing"
)

// A sorted slice with the input's sum is not necessarily the input sorted:
// the check must compare elements, or a sort that loses one element and
// duplicates another (or shifts two values in opposite directions) passes.
func TestSortCheckRejectsOtherElements(t *testing.T) {
	r := &Run{Param: 10_000}
	sortWorkload.Setup(r)
	slices.Sort(r.Ints)
	if err := sortWorkload.check(r, 0); err != nil {
		t.Fatalf("the input sorted is rejected: %v", err)
	}
	r.Ints[0]--
	r.Ints[len(r.Ints)-1]++ // still sorted, same sum
	if err := sortWorkload.check(r, 0); err == nil {
		t.Error("a sorted slice with the same sum but other elements is accepted")
	}
}

package coord

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

func counts(d Distribution, jobs, workers int) []int {
	got := make([]int, workers)
	next := 0
	d.Place(jobs, workers, func(job, w int) {
		if job != next {
			panic("jobs placed out of order")
		}
		next++
		got[w]++
	})
	return got
}

func TestDistributionPlace(t *testing.T) {
	for _, tc := range []struct {
		d    Distribution
		want []int
	}{
		{First, []int{7, 0, 0}},
		{Blocks, []int{2, 2, 3}},
		{RoundRobin, []int{3, 2, 2}},
		{Skewed, []int{4, 2, 1}},
	} {
		if got := counts(tc.d, 7, 3); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: counts %v, want %v", tc.d, got, tc.want)
		}
	}
}

func TestDistributionPlacesEveryJobOnce(t *testing.T) {
	for d := First; d <= Skewed; d++ {
		for _, w := range []int{1, 2, 5, 64} {
			total := 0
			for _, c := range counts(d, 1000, w) {
				total += c
			}
			if total != 1000 {
				t.Errorf("%v over %d workers placed %d jobs", d, w, total)
			}
		}
	}
	if got := counts(Blocks, 5, 0); len(got) != 0 {
		t.Errorf("zero workers placed %v", got)
	}
}

// TestBlocksAtLargeCounts: Blocks computed a block's bounds as w*jobs,
// which wraps on 32-bit platforms (GOARCH=386) long before the sizes the
// simulator accepts (sim.MaxWorkers, sim.MaxTasks): 3,000,000 jobs on
// 1,000 workers lost most of their jobs there.
func TestBlocksAtLargeCounts(t *testing.T) {
	const jobs, workers = 3_000_000, 1000
	got := counts(Blocks, jobs, workers)
	for w, c := range got {
		if c != jobs/workers {
			t.Fatalf("worker %d got %d jobs, want %d", w, c, jobs/workers)
		}
	}
}

func TestParseDistribution(t *testing.T) {
	for d := First; d <= Skewed; d++ {
		got, err := ParseDistribution(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDistribution(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := ParseDistribution("zigzag"); !errors.Is(err, ErrInvalid) {
		t.Errorf("zigzag: err = %v, want ErrInvalid", err)
	}
	if s := Distribution(9).String(); s != "Distribution(9)" {
		t.Errorf("String of bad value = %q", s)
	}
}

// TestPlaceUnknownDistributionIsFirst: a value outside the four places every
// job on the first worker, as documented, and loses none.
func TestPlaceUnknownDistributionIsFirst(t *testing.T) {
	for _, d := range []Distribution{-1, Skewed + 1} {
		var got []int
		d.Place(5, 3, func(job, worker int) {
			if job != len(got) {
				t.Fatalf("%v placed job %d after %d jobs", d, job, len(got))
			}
			got = append(got, worker)
		})
		if len(got) != 5 || slices.ContainsFunc(got, func(w int) bool { return w != 0 }) {
			t.Errorf("%v placed 5 jobs on workers %v, want all on 0", d, got)
		}
	}
}

package stats

import "testing"

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want int64
	}{
		{nil, 0}, {[]int64{7}, 7}, {[]int64{3, 1, 2}, 2}, {[]int64{4, 1, 3, 2}, 2}, {[]int64{10, 1, 1000, 5, 7}, 7},
	} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	in := []int64{3, 1, 2}
	Median(in)
	if in[0] != 3 {
		t.Error("median sorted its argument in place")
	}
	if got := Median([]float64{1, 2, 3, 4}); got != 2.5 {
		t.Errorf("median of floats = %v, want 2.5", got)
	}
}

package sim

import (
	"math"
	"testing"
	"time"
)

func TestCostMeansAndDeterminism(t *testing.T) {
	const n = 200000
	for _, m := range []CostModel{Fixed, Uniform, Exponential, Pareto} {
		c := Cost{Model: m, Mean: time.Millisecond}
		var sum float64
		for k := range uint64(n) {
			d := c.Draw(k)
			if d < 1 {
				t.Fatalf("%v: cost %v < 1ns", m, d)
			}
			if d != c.Draw(k) {
				t.Fatalf("%v: Draw not deterministic", m)
			}
			sum += float64(d)
		}
		mean := sum / n / float64(time.Millisecond)
		tol := 0.02
		if m == Pareto {
			tol = 0.1 // heavy tail converges slowly, and truncation trims it
		}
		if math.Abs(mean-1) > tol {
			t.Errorf("%v: sample mean %.3f ms, want 1 ms ± %.0f%%", m, mean, tol*100)
		}
	}
}

func TestCostShapes(t *testing.T) {
	c := Cost{Model: Fixed, Mean: 5 * time.Millisecond}
	if c.Draw(1) != 5*time.Millisecond {
		t.Fatal("fixed cost is not the mean")
	}
	var over int
	for k := range uint64(100000) {
		d := Cost{Model: Uniform, Mean: time.Millisecond}.Draw(k)
		if d > 2*time.Millisecond {
			t.Fatalf("uniform cost %v above 2*mean", d)
		}
		if (Cost{Model: Pareto, Mean: time.Millisecond}).Draw(k) > 10*time.Millisecond {
			over++
		}
	}
	// P(X > 10*mean) for Pareto(1.5, xm=mean/3) is (1/30)^1.5 ≈ 0.6%.
	if over < 300 || over > 1000 {
		t.Errorf("pareto tail: %d of 100000 above 10x mean, want about 600", over)
	}
}

func TestParseCostModel(t *testing.T) {
	for m := Fixed; m <= Pareto; m++ {
		if got, err := ParseCostModel(m.String()); err != nil || got != m {
			t.Errorf("%v: %v %v", m, got, err)
		}
	}
	if got, _ := ParseCostModel("heavy"); got != Pareto {
		t.Error("heavy is not pareto")
	}
	if _, err := ParseCostModel("lognormal"); err == nil {
		t.Error("lognormal accepted")
	}
	if CostModel(7).String() != "CostModel(7)" {
		t.Error("bad String for unknown model")
	}
}

// A fixed cost is the mean to the nanosecond, even where a float64 cannot
// hold it (beyond 2^53 ns, about 104 days).
func TestFixedCostIsExactlyTheMean(t *testing.T) {
	for _, mean := range []time.Duration{1, time.Millisecond, 1<<53 + 1, 123456789012345679, math.MaxInt64 - 1, math.MaxInt64} {
		if got := (Cost{Model: Fixed, Mean: mean}).Draw(5); got != mean {
			t.Errorf("fixed cost of mean %d ns: %d ns", mean, got)
		}
	}
}

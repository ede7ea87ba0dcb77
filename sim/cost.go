package sim

import (
	"fmt"
	"math"
	"time"
)

// CostModel is the distribution of job costs.
type CostModel int

// The cost models. Each is scaled so that its mean is Cost.Mean.
const (
	// Fixed: every job costs exactly the mean.
	Fixed CostModel = iota
	// Uniform: uniform on [0, 2*mean].
	Uniform
	// Exponential: memoryless, many short jobs and a few long ones.
	Exponential
	// Pareto: heavy-tailed (shape 1.5, infinite variance), truncated at
	// 1000 times the mean so one job cannot dwarf a whole run.
	Pareto
)

const paretoShape = 1.5

var costModelNames = [...]string{Fixed: "fixed", Uniform: "uniform", Exponential: "exponential", Pareto: "pareto"}

// String returns the model's name: "fixed", "uniform", "exponential" or
// "pareto".
func (m CostModel) String() string {
	if m < 0 || int(m) >= len(costModelNames) {
		return fmt.Sprintf("CostModel(%d)", int(m))
	}
	return costModelNames[m]
}

// valid reports whether m is one of the named models.
func (m CostModel) valid() bool { return m >= 0 && int(m) < len(costModelNames) }

// ParseCostModel maps a name to its model; "heavy" is an alias of "pareto".
func ParseCostModel(name string) (CostModel, error) {
	if name == "heavy" {
		return Pareto, nil
	}
	for m, n := range costModelNames {
		if n == name {
			return CostModel(m), nil
		}
	}
	return 0, fmt.Errorf("sim: unknown cost model %q (want fixed, uniform, exponential or pareto)", name)
}

// Cost draws job costs from a model with the given mean.
type Cost struct {
	Model CostModel
	Mean  time.Duration
}

// Draw returns the cost of the job identified by key. It is a pure function
// of (c, key): the same job costs the same under every policy. Costs are at
// least one nanosecond, so every job takes time, and at most the largest
// time.Duration (about 292 years), where a draw from the model would be
// longer.
func (c Cost) Draw(key uint64) time.Duration {
	if !c.Model.valid() || c.Model == Fixed {
		// Exactly the mean: a float64 would round one beyond 2^53 ns.
		return max(c.Mean, 1)
	}
	mean := float64(c.Mean)
	u := unit(key) // in (0, 1]
	var x float64
	switch c.Model {
	case Uniform:
		x = 2 * mean * u
	case Exponential:
		x = -mean * math.Log(u)
	case Pareto:
		xm := mean * (paretoShape - 1) / paretoShape
		x = min(xm/math.Pow(u, 1/paretoShape), 1000*mean)
	}
	if x >= float64(endOfTime) { // 2^63: converting it would wrap
		return endOfTime
	}
	return max(time.Duration(x), 1)
}

// mix is the splitmix64 finaliser: a cheap bijective hash whose outputs
// look independent for consecutive inputs.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// unit maps a key to a float in (0, 1], never 0 so logarithms stay finite.
func unit(key uint64) float64 {
	return float64(mix(key)>>11+1) / (1 << 53)
}

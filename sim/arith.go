package sim

import (
	"math"
	"math/bits"
	"time"
)

// Virtual time and costs are time.Durations, int64 nanoseconds, which
// reach about 292 years. Sums that can go further (the total work of a
// run, busy time summed over workers) are kept exactly in 128 bits or
// approximately in float64; instants and costs saturate at endOfTime.

// endOfTime is the largest time.Duration. No event happens at or after
// it: an instant that would is saturated to it, and the run stops before.
const endOfTime = time.Duration(math.MaxInt64)

// after returns t + d, saturated at endOfTime; d is not negative. A
// saturated sample time is noSample, which stops sampling.
func after(t, d int64) int64 {
	if d >= int64(endOfTime)-t {
		return int64(endOfTime)
	}
	return t + d
}

// work is an exact sum of non-negative durations: 2^64 jobs of the
// longest duration still fit.
type work struct{ hi, lo uint64 }

func (w *work) add(d time.Duration) {
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, uint64(max(d, 0)), 0)
	w.hi += carry
}

// duration returns the sum, saturated at endOfTime.
func (w work) duration() time.Duration {
	if w.hi != 0 || w.lo > math.MaxInt64 {
		return endOfTime
	}
	return time.Duration(w.lo)
}

// nanos returns the sum as a float64, to within a rounding step.
func (w work) nanos() float64 {
	return float64(w.hi)*(1<<64) + float64(w.lo)
}

// ceilDiv returns the sum divided by n > 0, rounded up and saturated at
// endOfTime.
func (w work) ceilDiv(n uint64) time.Duration {
	if w.hi >= n {
		return endOfTime // the quotient needs more than 64 bits
	}
	q, r := bits.Div64(w.hi, w.lo, n)
	if q >= math.MaxInt64 {
		return endOfTime
	}
	if r > 0 {
		q++
	}
	return time.Duration(q)
}

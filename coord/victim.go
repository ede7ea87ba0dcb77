package coord

import (
	"fmt"
	"math/rand/v2"
)

// VictimPolicy decides which busy worker a thief steals from.
//
// The zero value, MostLoaded, is the default and is deterministic: the
// candidate with the longest deque, ties going to the earliest listed. The
// coordinator sees every deque, so it can afford the best choice; the
// randomised policies are there to compare with what a decentralised
// scheduler does.
type VictimPolicy int

// The victim policies.
const (
	// MostLoaded picks the longest deque; ties go to the earliest listed.
	MostLoaded VictimPolicy = iota
	// Random picks uniformly among the candidates that have a job, from
	// the cluster's seeded generator.
	Random
	// BestOfTwo draws two distinct candidates at random and takes the
	// longer deque (the earlier listed on a tie): the "power of two
	// choices", nearly as good as MostLoaded at O(1) probing cost.
	BestOfTwo
)

var victimNames = [...]string{MostLoaded: "most_loaded", Random: "random", BestOfTwo: "best_of_two"}

// String returns the wire name: "most_loaded", "random" or "best_of_two".
func (p VictimPolicy) String() string {
	if !p.valid() {
		return fmt.Sprintf("VictimPolicy(%d)", int(p))
	}
	return victimNames[p]
}

// valid reports whether p is one of the listed policies.
func (p VictimPolicy) valid() bool { return p >= 0 && int(p) < len(victimNames) }

// ParseVictimPolicy maps a wire name to its VictimPolicy.
func ParseVictimPolicy(name string) (VictimPolicy, error) {
	for p, n := range victimNames {
		if n == name {
			return VictimPolicy(p), nil
		}
	}
	return 0, fail(Invalid, fmt.Sprintf("victim policy %q (want most_loaded, random or best_of_two)", name))
}

// Pick returns the position in sizes of the chosen victim. sizes holds the
// deque length of each candidate in listed order, all of them > 0; r is
// used only by the random policies. Pick panics on an empty list: callers
// check first, which is what keeps a failed steal from consuming randomness.
// A policy other than the three listed picks like MostLoaded (New refuses
// one).
func (p VictimPolicy) Pick(sizes []int, r *rand.Rand) int {
	n := len(sizes)
	switch {
	case n == 0:
		panic("cluster: Pick with no candidates")
	case n == 1:
		return 0
	}
	switch p {
	case Random:
		return r.IntN(n)
	case BestOfTwo:
		a, b := r.IntN(n), r.IntN(n-1)
		if b >= a {
			b++ // distinct from a, still uniform
		}
		a, b = min(a, b), max(a, b)
		if sizes[b] > sizes[a] {
			return b
		}
		return a
	default:
		best := 0
		for i, s := range sizes {
			if s > sizes[best] {
				best = i
			}
		}
		return best
	}
}

// Package uts defines the trees of UTS, the Unbalanced Tree Search
// benchmark (Olivier et al., "UTS: An Unbalanced Tree Search Benchmark",
// LCPC 2006): count the nodes of a tree that exists only implicitly, each
// node's children derived from its own state by a hash. Nobody can tell a subtree's size without walking it, so
// a static split of the work fails and the scheduler has to balance it.
//
// The original hashes with SHA-1; here every node's state is a uint64 and
// the hash is SplitMix64's (Steele, Lea, Flood, "Fast Splittable
// Pseudorandom Number Generators", OOPSLA 2014), written the same way in
// bench/xlang/rust and bench/xlang/java, so that every language walks the
// very same tree and must report the same count. Only integer arithmetic
// decides the shape: no floating-point rounding can differ between them.
package uts

// Node is a tree node: its hash state and its depth (the root's is 0).
type Node struct {
	State uint64
	Depth int32
}

// Tree is the shape of a UTS tree.
type Tree struct {
	Geometric bool   // geometric (fixed shape) rather than binomial
	Seed      uint64 // the root's state is SplitMix64's first output from Seed
	RootKids  int    // binomial: the root's children (b0)
	M         int    // binomial: children of a node that has any
	Q         uint64 // binomial: P(a non-root node has M children), as a threshold
	B         uint64 // geometric: P(one more child), as a threshold
	MaxDepth  int32  // geometric: nodes at this depth have no children
	Rounds    int    // hash rounds per node: its work (UTS's granularity)
}

const (
	golden = 0x9E3779B97F4A7C15 // SplitMix64's increment
	// drawSalt separates a geometric node's draws from its children's
	// states, which are the same SplitMix64 stream's outputs.
	drawSalt = 0x5851F42D4C957F2D
	// maxKids caps a geometric node's children, as UTS's MAXNUMCHILDREN.
	maxKids = 100
)

// mix is SplitMix64's output function.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// threshold turns a probability into the bound a hash's top 53 bits are
// compared with. p * 2^53 is exact in float64 (a power-of-two scaling) and
// the conversion truncates, in every IEEE-754 language alike.
func threshold(p float64) uint64 { return uint64(p * (1 << 53)) }

// hit reports whether a hash falls under a threshold.
func hit(h, thr uint64) bool { return h>>11 < thr }

// BinomialTree is UTS's binomial tree: the root has b0 children; every
// other node has m children with probability q, else none. Each node costs
// one hash round.
func BinomialTree(b0, m int, q float64, seed uint64) Tree {
	return Tree{Seed: seed, RootKids: b0, M: m, Q: threshold(q), Rounds: 1}
}

// GeometricTree is UTS's geometric tree of fixed shape: a node above
// maxDepth has a geometrically distributed number of children with mean b
// (at most 100); a node at maxDepth has none. Making a node costs rounds
// hash rounds, in a chain no compiler can shorten.
func GeometricTree(b float64, maxDepth int, seed uint64, rounds int) Tree {
	return Tree{Geometric: true, Seed: seed, B: threshold(b / (b + 1)), MaxDepth: int32(maxDepth), Rounds: rounds}
}

// Root returns the tree's root.
func (t *Tree) Root() Node { return Node{State: mix(t.Seed + golden)} }

// Kids returns the number of n's children.
func (t *Tree) Kids(n Node) int {
	if t.Geometric {
		if n.Depth >= t.MaxDepth {
			return 0
		}
		k := 0
		for k < maxKids && hit(mix((n.State^drawSalt)+uint64(k+1)*golden), t.B) {
			k++
		}
		return k
	}
	if n.Depth == 0 {
		return t.RootKids
	}
	if hit(n.State, t.Q) {
		return t.M
	}
	return 0
}

// Child returns n's child number i: the (i+1)th output of SplitMix64
// seeded with n's state, put through mix Rounds-1 more times.
func (t *Tree) Child(n Node, i int) Node {
	s := mix(n.State + uint64(i+1)*golden)
	for r := 1; r < t.Rounds; r++ {
		s = mix(s)
	}
	return Node{State: s, Depth: n.Depth + 1}
}

// Count returns the number of nodes of n's subtree, n included, walking it
// by plain recursion.
func (t *Tree) Count(n Node) int64 {
	count := int64(1)
	for i := range t.Kids(n) {
		count += t.Count(t.Child(n, i))
	}
	return count
}

// The trees the benchmarks walk; bench/xlang/rust and bench/xlang/java
// hard-code the same constants.
const (
	// Binomial: m*q = 1, a critical tree, whose size swings by orders of
	// magnitude with the seed (with b0 = 2000, seed 1 gives 4 billion
	// nodes); seed 38 gives 6,972,016.
	BinM, BinQ, BinSeed = 5, 0.2, 38
	// Geometric: UTS's T1 shape and seed number (b = 4, depth 10, r = 19),
	// 40 hash rounds a node: 3,578,415 nodes, about 1 s sequentially.
	GeoB, GeoSeed, GeoRounds = 4, 19, 40
)

// Binomial is the benchmarks' binomial tree with b0 children at the root:
// critical (m*q = 1), so subtree sizes are heavy-tailed and a few of the
// root's children own most of the tree.
func Binomial(b0 int) Tree { return BinomialTree(b0, BinM, BinQ, BinSeed) }

// Geometric is the benchmarks' geometric tree cut at depth: bushy and
// shallow, with some work in every node.
func Geometric(depth int) Tree { return GeometricTree(GeoB, depth, GeoSeed, GeoRounds) }

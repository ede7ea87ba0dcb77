package uts

import (
	"math"
	"testing"
)

// TestSplitMix64 checks mix and Child against SplitMix64's published
// outputs (Vigna's splitmix64.c, seed 1234567): child i of a node is the
// stream's (i+1)th output.
func TestSplitMix64(t *testing.T) {
	if got := mix(golden); got != 0xE220A8397B1DCDAF {
		t.Errorf("first output from seed 0 = %#x, want 0xe220a8397b1dcdaf", got)
	}
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423,
		4593380528125082431, 16408922859458223821}
	tr := Binomial(1)
	for i, w := range want {
		if got := tr.Child(Node{State: 1234567}, i).State; got != w {
			t.Errorf("child %d = %d, want %d", i, got, w)
		}
	}
}

// TestRounds: a node's work is Rounds chained mixes.
func TestRounds(t *testing.T) {
	tr := GeometricTree(4, 10, 1, 3)
	n := Node{State: 99, Depth: 2}
	c := tr.Child(n, 4)
	g := uint64(golden)
	if want := mix(mix(mix(99 + 5*g))); c.State != want || c.Depth != 3 {
		t.Errorf("child = %+v, want state %d depth 3", c, want)
	}
}

func TestThreshold(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want uint64
	}{{0, 0}, {0.5, 1 << 52}, {1, 1 << 53}, {0.2, 1801439850948198}, {0.8, 7205759403792794}} {
		if got := threshold(c.p); got != c.want {
			t.Errorf("threshold(%v) = %d, want %d", c.p, got, c.want)
		}
	}
}

// TestCounts pins the node counts that bench/xlang/rust and
// bench/xlang/java must print too: a change here desynchronises them.
func TestCounts(t *testing.T) {
	cases := []struct {
		name string
		tree Tree
		want int64
	}{
		{"Binomial(100)", Binomial(100), 6661},
		{"Geometric(5)", Geometric(5), 3345},
		{"Binomial(2000)", Binomial(2000), 6972016},
		{"Geometric(10)", Geometric(10), 3578415},
	}
	for _, c := range cases {
		if testing.Short() && c.want > 1e6 {
			continue
		}
		if got := c.tree.Count(c.tree.Root()); got != c.want {
			t.Errorf("%s has %d nodes, want %d", c.name, got, c.want)
		}
	}
}

// TestShape: the trees have the shapes UTS defines, on 100,000 nodes.
func TestShape(t *testing.T) {
	bin := Binomial(3)
	if k := bin.Kids(bin.Root()); k != 3 {
		t.Errorf("binomial root has %d children, want 3", k)
	}
	geo := Geometric(6)
	const n = 100_000
	g := uint64(golden)
	withKids, geoKids := 0, 0
	for i := range n {
		s := mix(uint64(i) * g)
		switch k := bin.Kids(Node{State: s, Depth: 1}); k {
		case 0:
		case BinM:
			withKids++
		default:
			t.Fatalf("binomial node with %d children", k)
		}
		if k := geo.Kids(Node{State: s, Depth: 6}); k != 0 {
			t.Fatalf("geometric node at the depth limit has %d children", k)
		}
		geoKids += geo.Kids(Node{State: s, Depth: 5})
	}
	if q := float64(withKids) / n; math.Abs(q-BinQ) > 0.01 {
		t.Errorf("binomial: %.3f of nodes have children, want about %v", q, BinQ)
	}
	if b := float64(geoKids) / n; math.Abs(b-GeoB) > 0.1 {
		t.Errorf("geometric: %.3f children per node, want about %v", b, GeoB)
	}
}

package steal

import (
	"context"
	"slices"
	"testing"
)

// spin does about n iterations of dependent arithmetic: work that is not
// memory traffic.
//
//go:noinline
func spin(x, n int) int {
	for range n {
		x = x*1103515245 + 12345
	}
	return x
}

// BenchmarkMap maps ints through a cheap function (1,000,000 of them) and
// through one that computes for about a microsecond (50,000): a plain
// loop, Map, MapSeq (and, for a sequence, slices.Collect then Map) from a
// task, and PoolMap and PoolMapErr from outside.
func BenchmarkMap(b *testing.B) {
	p := New()
	defer p.Close()
	for _, c := range []struct {
		name string
		n    int
		work int
	}{{"cheap", 1_000_000, 0}, {"1us", 50_000, 900}} {
		in := ints(c.n)
		f := func(_ *Worker, x int) int { return spin(x, c.work) }
		fe := func(_ *Worker, x int) (int, error) { return spin(x, c.work), nil }
		b.Run(c.name+"/loop", func(b *testing.B) {
			for b.Loop() {
				out := make([]int, len(in))
				for i, x := range in {
					out[i] = f(nil, x)
				}
			}
		})
		b.Run(c.name+"/Map", func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { Map(w, in, f) })
			}
		})
		b.Run(c.name+"/MapSeq", func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { MapSeq(w, slices.Values(in), f) })
			}
		})
		b.Run(c.name+"/Collect+Map", func(b *testing.B) {
			for b.Loop() {
				p.Run(func(w *Worker) { Map(w, slices.Collect(slices.Values(in)), f) })
			}
		})
		b.Run(c.name+"/PoolMap", func(b *testing.B) {
			for b.Loop() {
				PoolMap(context.Background(), p, in, f)
			}
		})
		b.Run(c.name+"/PoolMapErr", func(b *testing.B) {
			for b.Loop() {
				PoolMapErr(context.Background(), p, in, fe)
			}
		})
	}
}

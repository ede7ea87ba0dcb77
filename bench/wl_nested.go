package main

import (
	"sync"
	"time"
)

// fanOut is the nested tree's fan-out; param is its depth.
const fanOut = 4

// nested: a tree of groups, each task waiting for its children. In a pool
// bounded to W workers, W tasks waiting for queued children hold every
// worker and nothing runs the children: ants, pond, conc and channel
// deadlock, reported as a timeout after a short per-run timeout. Their
// trackers have it: https://github.com/panjf2000/ants/issues/197,
// https://github.com/alitto/pond/issues/56 and
// https://github.com/sourcegraph/conc/issues/133.
var nestedWorkload = &Workload{
	Name:    "nested",
	About:   "a tree of groups, fan-out 4, depth param; each task waits for its children",
	Default: 8, Tiny: 4, Timeout: 5 * time.Second,
	Tasks: func(d int) int64 { // every node but the root
		n, l := int64(0), int64(1)
		for range d {
			l *= fanOut
			n += l
		}
		return n
	},
	Want:      func(d int) int64 { return pow(fanOut, d) },
	Impls:     nestedImpls(),
	Deadlocks: []string{"ants", "pond", "conc", "channel"},
}

func nestedImpls() []Impl {
	impls := []Impl{{"steal", nestedSteal}}
	for _, im := range peerImpls(nestedPeer) {
		if im.Name == "errgroup" {
			im.Fn = func(r *Run) (int64, error) {
				var leaves counter
				nestedErrgroup(r.Param, &leaves)
				return leaves.load(), nil
			}
		}
		impls = append(impls, im)
	}
	return append(impls, Impl{"sequential", nestedSeq})
}

// nestedPeer: every node submits its children to the one bounded pool and
// waits for them with a WaitGroup.
func nestedPeer(r *Run, np newPool) (int64, error) {
	p := np(r.Workers)
	var leaves counter
	var node func(depth int)
	node = func(depth int) {
		if depth == 0 {
			leaves.add()
			return
		}
		var wg sync.WaitGroup
		wg.Add(fanOut)
		for range fanOut {
			p.Go(func() { defer wg.Done(); node(depth - 1) })
		}
		wg.Wait()
	}
	done := make(chan struct{})
	r.Start()
	p.Go(func() { node(r.Param); close(done) })
	<-done // a conc pool panics on a Go after its Wait has begun
	p.Wait()
	r.Stop()
	p.Close()
	return leaves.load(), nil
}

func pow(b, e int) int64 {
	v := int64(1)
	for range e {
		v *= int64(b)
	}
	return v
}

package main

import (
	"sync"
	"time"
)

// imbalancedTasks is the number of tasks; param is the ints each sums.
const imbalancedTasks = 1000

// imbalanced: the classic imbalanced demo, 1000 tasks each summing param ints, all
// submitted from one place (steal: spawned from one task onto its worker).
var imbalancedWorkload = &Workload{
	Name:    "imbalanced",
	About:   "1000 tasks each summing param ints, all submitted from one place",
	Default: 1_000_000, Tiny: 10_000, Timeout: 60 * time.Second,
	Tasks: func(int) int64 { return imbalancedTasks },
	Want:  func(n int) int64 { return imbalancedTasks * int64(n) * int64(n-1) / 2 },
	Impls: append(append([]Impl{{"steal", imbalancedSteal}}, peerImpls(imbalancedPeer)...),
		Impl{"sequential", imbalancedSeq}),
}

var (
	imbalancedMu   sync.Mutex
	imbalancedMemo = map[int][]int{}
)

// imbalancedData is 0..n-1, shared by every task.
func imbalancedData(n int) []int {
	imbalancedMu.Lock()
	defer imbalancedMu.Unlock()
	d, ok := imbalancedMemo[n]
	if !ok {
		d = make([]int, n)
		for i := range d {
			d[i] = i
		}
		imbalancedMemo[n] = d
	}
	return d
}

// sumInts is every implementation's task body. It is not inlined, so that
// all of them run the very same machine code: inlined into different
// closures, the loop was compiled differently enough to differ by 1.7x.
//
//go:noinline
func sumInts(d []int) int64 {
	s := 0
	for _, v := range d {
		s += v
	}
	return int64(s)
}

func imbalancedPeer(r *Run, np newPool) (int64, error) {
	data := imbalancedData(r.Param)
	p := np(r.Workers)
	var mu sync.Mutex
	var sum int64
	task := func() {
		s := sumInts(data)
		mu.Lock()
		sum += s
		mu.Unlock()
	}
	r.Start()
	for range imbalancedTasks {
		p.Go(task)
	}
	p.Wait()
	r.Stop()
	p.Close()
	return sum, nil
}

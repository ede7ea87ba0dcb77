package main

import "time"

// chained: each task spawns the next, a chain of param tasks.
var chainedWorkload = &Workload{
	Name:    "chained",
	About:   "each task spawns the next, a chain of param tasks",
	Default: 1_000_000, Tiny: 10_000, Timeout: 60 * time.Second,
	Tasks: func(n int) int64 { return int64(n) },
	Want:  func(n int) int64 { return int64(n) },
	Impls: append(append([]Impl{{"steal", chainedSteal}}, peerImpls(chainedPeer)...),
		Impl{"sequential", chainedSeq}),
}

func chainedPeer(r *Run, np newPool) (int64, error) {
	n := int64(r.Param)
	p := np(r.Workers)
	var count counter
	done := make(chan struct{})
	var step func()
	step = func() {
		if count.add() < n {
			p.Go(step)
		} else {
			close(done)
		}
	}
	r.Start()
	p.Go(step)
	<-done // a conc pool panics on a Go after its Wait has begun
	p.Wait()
	r.Stop()
	p.Close()
	return count.load(), nil
}

package main

import "time"

// spawn-inner: param tiny tasks spawned from inside one task.
var spawnInnerWorkload = &Workload{
	Name:    "spawn-inner",
	About:   "param tiny tasks spawned from inside one task",
	Default: 1_000_000, Tiny: 10_000, Timeout: 60 * time.Second,
	Tasks: func(n int) int64 { return int64(n) + 1 },
	Want:  func(n int) int64 { return int64(n) },
	Impls: append([]Impl{{"steal", spawnInnerSteal}}, peerImpls(spawnInnerPeer)...),
}

func spawnInnerPeer(r *Run, np newPool) (int64, error) {
	p := np(r.Workers)
	var count counter
	done := make(chan struct{})
	task := func() {
		if count.add() == int64(r.Param) {
			close(done)
		}
	}
	r.Start()
	p.Go(func() {
		for range r.Param {
			p.Go(task)
		}
	})
	// Wait for the last task before calling Wait: a conc pool panics on a
	// Go after its Wait has begun.
	<-done
	p.Wait()
	r.Stop()
	p.Close()
	return count.load(), nil
}

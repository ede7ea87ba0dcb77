package main

import "time"

// spawn: param tiny tasks submitted from one goroutine outside the pool.
var spawnWorkload = &Workload{
	Name:    "spawn",
	About:   "param tiny tasks submitted from one goroutine outside the pool",
	Default: 1_000_000, Tiny: 10_000, Timeout: 60 * time.Second,
	Tasks: func(n int) int64 { return int64(n) },
	Want:  func(n int) int64 { return int64(n) },
	Impls: append(append([]Impl{{"steal", spawnSteal}, {"steal-batch", spawnBatchSteal}, {"steal-go", spawnGoSteal}, {"steal-go-max", spawnGoMaxSteal}}, peerImpls(spawnPeer)...),
		Impl{"sequential", spawnSeq}),
}

func spawnPeer(r *Run, np newPool) (int64, error) {
	p := np(r.Workers)
	var count counter
	task := func() { count.add() }
	r.Start()
	for range r.Param {
		p.Go(task)
	}
	p.Wait()
	r.Stop()
	p.Close()
	return count.load(), nil
}

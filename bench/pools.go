package main

// pool is what the workloads written once for every peer need from it:
// submit a task (blocking, as the library does, when a bounded pool is
// full), wait for every task submitted so far and those they submit, and
// release the pool.
type pool interface {
	Go(f func())
	Wait()
	Close()
}

// newPool makes a pool bounded to workers (where the library bounds at all).
type newPool func(workers int) pool

type peerPool struct {
	name string
	make newPool
}

// peerPools are the implementations driven through the pool interface, in
// implOrder. steal and sequential have their own functions per workload.
var peerPools = []peerPool{
	{"goroutines", newGoroutines},
	{"errgroup", newErrgroup},
	{"ants", newAnts},
	{"pond", newPond},
	{"conc", newConc},
	{"channel", newChannel},
}

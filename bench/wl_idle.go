package main

import (
	"runtime"
	"syscall"
	"time"
)

// idleBatch is the batch each pool runs before it idles.
const idleBatch = 10_000

// idle: start the pool, run one batch of idleBatch tiny tasks, then measure
// the process's CPU time (getrusage, user + system) over param ms of idle.
// sequential is the baseline: the Go runtime alone, with no pool.
var idleWorkload = &Workload{
	Name:    "idle",
	About:   "process CPU time over param ms of idle after one batch",
	Default: 1000, Tiny: 50, Timeout: 60 * time.Second,
	Tasks: func(int) int64 { return idleBatch },
	Want:  func(int) int64 { return idleBatch },
	Impls: append(append([]Impl{{"steal", idleSteal}}, peerImpls(idlePeer)...),
		Impl{"sequential", idleSeq}),
}

func idlePeer(r *Run, np newPool) (int64, error) {
	p := np(r.Workers)
	var count counter
	task := func() { count.add() }
	for range idleBatch {
		p.Go(task)
	}
	p.Wait()
	measureIdle(r)
	p.Close()
	return count.load(), nil
}

// measureIdle times param ms of doing nothing and sets r.CPUNsPerS to the
// process CPU time spent meanwhile, per second.
func measureIdle(r *Run) {
	runtime.GC()
	r.Start()
	c0 := cpuTime()
	time.Sleep(time.Duration(r.Param) * time.Millisecond)
	c1 := cpuTime()
	r.Stop()
	r.CPUNsPerS = float64(c1-c0) / r.elapsed.Seconds()
}

// cpuTime is the process's user plus system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

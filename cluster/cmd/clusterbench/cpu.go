package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// CPU time is what the comparison reports beside the clock: on a machine
// shared with other work, the clock stretches with everything else that
// runs, while the CPU the trial's own processes used does much less so.
// A trial's CPU is this process's (the embedded server, the submitting
// side and, in-process, the workers) plus, with -procs, every worker
// process's, over the clock's window.

// selfCPU is the user + system CPU time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pidSched is the CPU time process pid has used so far: the sum of its
// threads' run time in nanoseconds from /proc/<pid>/task/*/schedstat
// (Linux), or, where that cannot be read, user + system time from
// /proc/<pid>/stat, in clock ticks (see statCPU); 0 where neither can.
// Beside it, how many times those threads have been put on a CPU
// (schedstat's third field: every wake-up after a sleep, and every return
// after being preempted), 0 where schedstat cannot be read: a process that
// handles a job with many hand-offs between goroutines and threads shows
// it here. A thread that has exited is no longer counted; a Go program's
// threads rarely exit.
func pidSched(pid int) (time.Duration, int64) {
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil {
		return statCPU(dir), 0
	}
	var t time.Duration
	var n int64
	for _, task := range tasks {
		b, err := os.ReadFile(dir + "/task/" + task.Name() + "/schedstat")
		if err != nil {
			return statCPU(dir), 0
		}
		f := bytes.Fields(b)
		if len(f) < 3 {
			return statCPU(dir), 0
		}
		ns, err1 := strconv.ParseInt(string(f[0]), 10, 64)
		k, err2 := strconv.ParseInt(string(f[2]), 10, 64)
		if err1 != nil || err2 != nil {
			return statCPU(dir), 0
		}
		t += time.Duration(ns)
		n += k
	}
	return t, n
}

// clockTick is the unit of /proc/<pid>/stat's times: USER_HZ, 100 on
// Linux wherever we have looked (the C library's sysconf(_SC_CLK_TCK)
// says so; Go has no call for it without cgo).
const clockTick = 10 * time.Millisecond

// statCPU is the user + system CPU time of the process whose /proc
// directory is dir, from its stat file; 0 where that cannot be read.
func statCPU(dir string) time.Duration {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+s) * clockTick
}

// A childCPUer is a system whose workers are processes of their own.
type childCPUer interface {
	// childCPU is the CPU time its worker processes have used so far,
	// and how many times their threads were put on a CPU.
	childCPU() (time.Duration, int64)
}

// cpuSnap is the CPU a trial of sys has used so far: this process's (the
// server and the submitting side, and in-process the workers), and its
// worker processes' with their threads' times on a CPU (see pidSched).
type cpuSnap struct {
	self, kids time.Duration
	kidSlices  int64
}

func (a cpuSnap) total() time.Duration { return a.self + a.kids }

// cpuNow is the CPU time a trial of sys has used so far: this process's
// and its worker processes'.
func cpuNow(sys system) time.Duration { return cpuSplit(sys).total() }

// cpuSplit is cpuNow, split by process.
func cpuSplit(sys system) cpuSnap {
	c := cpuSnap{self: selfCPU()}
	if k, ok := sys.(childCPUer); ok {
		c.kids, c.kidSlices = k.childCPU()
	}
	return c
}

// childCPU sums the CPU time of the worker processes and their threads'
// times on a CPU.
func (s *procSystem) childCPU() (time.Duration, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Duration
	var n int64
	for _, k := range s.kids {
		kt, kn := pidSched(k.cmd.Process.Pid)
		t += kt
		n += kn
	}
	return t, n
}

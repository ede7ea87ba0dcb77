// Package schedcheck watches a running Go program for the symptoms of
// scheduler misuse that only show at run time: goroutines pinned to
// threads, one P on many CPUs, more Ps than the container's CPU quota,
// goroutines started faster than they finish, cgo calls that each hold a
// thread, and a long scheduling latency tail. It reads the runtime's own
// numbers (runtime/metrics, runtime.NumCPU, the cgroup's CPU quota,
// getrusage) and imports only the standard library.
//
// # Usage
//
//	m := schedcheck.Start(ctx) // samples every second until ctx is done or Stop
//	defer func() { log.Print(m.Stop()) }()
//
// Stop returns a Report: each finding the first time it was seen, or
// "schedcheck: no pitfall symptoms seen (N samples)". WithOnFinding reports
// them as they come instead. For a single look, or numbers recorded
// elsewhere, Sample takes a Snapshot and Diagnose reads a series of them.
//
// # Findings
//
// Each Finding has a stable Name, what was seen with the numbers, what to
// do, and the metrics it rests on. The thresholds are the defaults; the
// options named change them.
//
//   - gomaxprocs-one: GOMAXPROCS is 1 while the process may use more than
//     one CPU (runtime.NumCPU, lowered to the cgroup's quota). One P runs
//     every goroutine and there is nothing to steal from. Read from the
//     last snapshot.
//   - container-quota: GOMAXPROCS is above the cgroup's CPU quota rounded
//     up, and above 2. Since Go 1.25 the runtime's default is exactly
//     that (runtime/cgroup_linux.go: the quota rounded up, at least 2, at
//     most the CPU count), so this shows only where GOMAXPROCS was set by
//     hand (runtime.GOMAXPROCS or the GOMAXPROCS environment variable),
//     under a Go before 1.25, or where the quota sits on a parent cgroup:
//     the runtime reads only the process's own cgroup, this package the
//     smallest quota from there up. The quota is cgroup v2's cpu.max or
//     v1's cpu.cfs_quota_us over cpu.cfs_period_us, found through
//     /proc/self/cgroup and /proc/self/mountinfo as the runtime finds it.
//   - pinned-threads: in every sample of the window (WithWindow, 5), the
//     process holds at least 4 threads (WithThreadSlack) more than
//     GOMAXPROCS plus the goroutines in system calls and cgo calls
//     (/sched/threads/total:threads, /sched/goroutines/not-in-go:goroutines),
//     and at least half of GOMAXPROCS goroutines, 3 at least
//     (WithLockedGoroutines), are locked to threads (runtime.LockOSThread).
//     Threads alone prove nothing: the runtime keeps every thread it ever
//     made, so a burst of blocking system calls leaves idle threads for
//     good. Threads are counted against GOMAXPROCS, as if every P had
//     its thread, which a busy program's do; in a mostly idle program
//     with many Ps, locked threads can hide in the difference and go
//     unreported. The locked goroutines are counted from a goroutine dump
//     (LockedGoroutines), which a Monitor takes only when the threads have
//     been unexplained for a whole window, again when their number has
//     grown since or, while they stay unexplained, every 10 windows (50 s
//     at the defaults: goroutines locked later can take over threads an
//     earlier burst left idle, and the count does not move), and never
//     with more than 2000 goroutines (the dump stops the world for some
//     microseconds per goroutine; see docs/schedcheck.md).
//   - cgo-threads: in every sample of the window at least 64 goroutines
//     (WithCgoInFlight) are in cgo calls or system calls, cgo calls were
//     made in the window (/cgo/go-to-c-calls:calls), and the process holds
//     at least as many threads: each call in flight holds a thread. Calls
//     that started before the window and have not returned (a C function
//     that blocks) start none in it; a Monitor then counts the goroutines
//     in cgo calls from a goroutine dump (Snapshot.InCgo), as it counts
//     locked ones and as often, and at least 64 of them make the finding
//     too. Goroutines in blocking system calls alone are not reported.
//   - unbounded-goroutines: over the window the goroutine count never
//     falls and grows by at least 1000 (WithGoroutineGrowth); the runnable
//     count grows by at least half as much, so the growth is work waiting
//     for a P rather than goroutines parked on I/O; and the p99 scheduling
//     latency of the window's later half is at least 1 ms and no lower
//     than the earlier half's (twice it where this Go has no runnable
//     count).
//   - sched-latency-tail: over the window, the p99 scheduling latency
//     (/sched/latencies:seconds, the time goroutines sat runnable before
//     they ran) is at least 25 ms with 100 or more recorded wake-ups, or
//     the p999 at least 100 ms with 1000 or more (WithLatencyTail). A P
//     runs a goroutine for up to a 10 ms time slice before the runtime
//     preempts it (sysmon, in proc.go), so a goroutine on a busy program
//     waits up to one slice, sometimes two, and that is not reported. The
//     finding says how many CPUs the process ran on (getrusage) against
//     how many its Ps could use; under three quarters, with goroutines
//     runnable in at least half the samples, means the OS kept it off the
//     CPUs (other processes, or the cgroup's quota) and that is part of
//     the wait.
//
// The runtime records about one in eight goroutine wake-ups in the latency
// histogram, and quantiles are read as the lower edge of the histogram
// bucket they fall in (buckets are about a quarter of a power of two
// wide), so they err low: a threshold they cross was crossed.
//
// A busy program that keeps up reports nothing: its goroutine count goes
// up and down, its threads are its Ps and its system calls, and its
// goroutines wait at most a time slice or two for a P. Metrics a Go does
// not export (the goroutine states are new in Go 1.26) read as -1 and
// turn off the rules that need them instead of guessing.
//
// # Cost
//
// A sample reads ten runtime metrics, copies one histogram and makes one
// getrusage call; it does not stop the world. The cgroup's quota, a few
// small file reads that cost more than all that, is read at most once a
// second. docs/schedcheck.md has the measured costs (BenchmarkSample,
// BenchmarkLockedGoroutines). A Monitor is one goroutine and a window of
// snapshots; once stopped it stays stopped, and a new one is started with
// Start. In a program whose run queues are backed up, the Monitor's
// goroutine waits its turn like any other, so its samples come further
// apart than the interval; the Report's times are the real ones.
package schedcheck

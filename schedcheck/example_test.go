package schedcheck_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/worksteal/steal/schedcheck"
)

// The examples diagnose snapshots built by hand, so that what they print
// does not depend on the machine; a Snapshot from Sample reads the same.

// edges are histogram bucket edges in seconds, shaped like the runtime's.
var edges = []float64{math.Inf(-1), 0, 1e-4, 1e-3, 1e-2, 25e-3, 1e-1, math.Inf(1)}

// series returns n snapshots a second apart of a program on 8 CPUs with
// GOMAXPROCS 8, each changed by f; each second 1000 goroutines wait 50 µs
// for a P and waits(i) more wait longer, in the bucket of that duration.
func series(n int, f func(i int, s *schedcheck.Snapshot), waits func(i int) (time.Duration, uint64)) []schedcheck.Snapshot {
	counts := make([]uint64, len(edges)-1)
	var out []schedcheck.Snapshot
	for i := range n {
		counts[1] += 1000
		if waits != nil {
			d, k := waits(i)
			b := 0
			for j := range counts {
				if edges[j] <= d.Seconds() {
					b = j
				}
			}
			counts[b] += k
		}
		s := schedcheck.Snapshot{
			Time:       time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC),
			GOMAXPROCS: 8, NumCPU: 8, Goroutines: 40, Runnable: 1, Running: 8, Waiting: 31,
			NotInGo: 0, Created: 40, Threads: 12, CgoCalls: 0, CPUTime: -1, Locked: -1,
			Latencies: metrics.Float64Histogram{Buckets: edges, Counts: append([]uint64(nil), counts...)},
		}
		if f != nil {
			f(i, &s)
		}
		out = append(out, s)
	}
	return out
}

func names(fs []schedcheck.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// A program watches itself while it works and logs what was seen at the
// end.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	m := schedcheck.Start(ctx, schedcheck.WithInterval(10*time.Millisecond))

	time.Sleep(50 * time.Millisecond) // the program's work

	cancel()
	r := m.Stop()
	for _, f := range r.Findings {
		log.Print(f) // none in a healthy program
	}
	fmt.Println(r.Samples > 1)
	// Output: true
}

// Sample reads the scheduler once; Locked is -1 because Sample never
// counts locked goroutines.
func ExampleSample() {
	s := schedcheck.Sample()
	fmt.Println(s.GOMAXPROCS == runtime.GOMAXPROCS(0), s.NumCPU == runtime.NumCPU(), s.Goroutines > 0, s.Locked)
	// Output: true true true -1
}

// A Snapshot built by hand: a service on a 64-CPU host, in a container
// allowed 4 CPUs, that set GOMAXPROCS to the host's count.
func ExampleSnapshot() {
	s := schedcheck.Snapshot{GOMAXPROCS: 64, NumCPU: 64, CPUQuota: 4, QuotaFile: "/sys/fs/cgroup/cpu.max", Locked: -1}
	for _, f := range schedcheck.Diagnose([]schedcheck.Snapshot{s}) {
		fmt.Println(f.Name)
	}
	// Output: container-quota
}

// Diagnose reads a series of snapshots, oldest first. Five samples of 12
// threads for 8 Ps are healthy; then 20 goroutines locked to threads.
func ExampleDiagnose() {
	fmt.Println(names(schedcheck.Diagnose(series(5, nil, nil))))
	pinned := series(5, func(i int, s *schedcheck.Snapshot) { s.Threads, s.Locked = 31, 20 }, nil)
	fmt.Println(names(schedcheck.Diagnose(pinned)))
	// Output:
	// []
	// [pinned-threads]
}

func ExampleFinding() {
	f := schedcheck.Diagnose([]schedcheck.Snapshot{{GOMAXPROCS: 1, NumCPU: 4, Locked: -1}})[0]
	fmt.Println(f.Name)
	fmt.Println(f.Seen)
	fmt.Println(f.Metrics)
	// Output:
	// gomaxprocs-one
	// GOMAXPROCS is 1 on a process that may use 4 CPUs (NumCPU 4, no CPU quota): one P runs every goroutine, there is no other P to steal from, and the other CPUs stay idle.
	// [/sched/gomaxprocs:threads runtime.NumCPU cgroup cpu.max]
}

func ExampleFinding_String() {
	s := schedcheck.Snapshot{GOMAXPROCS: 8, NumCPU: 8, CPUQuota: 2, QuotaFile: "/sys/fs/cgroup/cpu.max", Locked: -1}
	fmt.Println(schedcheck.Diagnose([]schedcheck.Snapshot{s})[0])
	// Output:
	// container-quota: GOMAXPROCS is 8 but the cgroup allows 2 CPUs (/sys/fs/cgroup/cpu.max; NumCPU 8): 8 Ps share the time of 2 CPUs, so once the quota is spent the kernel stops every thread until the next period, which shows as scheduling latency. What to do: let the runtime choose: since Go 1.25 the default GOMAXPROCS follows the quota (here 2), so remove the runtime.GOMAXPROCS(n) call or the GOMAXPROCS environment setting; before Go 1.25, use go.uber.org/automaxprocs or set GOMAXPROCS to the quota rounded up.
}

// LockedGoroutines counts goroutines locked to threads; it stops the world
// while it looks, so it is for when the thread count calls for it.
func ExampleLockedGoroutines() {
	locked, release, done := make(chan bool), make(chan bool), make(chan bool)
	go func() {
		runtime.LockOSThread() // a goroutine that needs its thread, say for a C library
		defer runtime.UnlockOSThread()
		locked <- true
		<-release
		done <- true
	}()
	<-locked
	fmt.Println(schedcheck.LockedGoroutines())
	close(release)
	<-done
	// Output: 1
}

// Start runs a Monitor until its context ends; Stop then returns at once
// with the report.
func ExampleStart() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	m := schedcheck.Start(ctx, schedcheck.WithInterval(10*time.Millisecond))
	<-ctx.Done()
	r := m.Stop()
	fmt.Println(r.Samples >= 2, !r.End.Before(r.Start))
	// Output: true true
}

func ExampleMonitor() {
	m := schedcheck.Start(context.Background())
	r := m.Stop() // the first sample and the last
	fmt.Println(r.Samples, m.Stop().Samples)
	// Output: 2 2
}

// Stop may be called more than once; each call returns the same Report.
func ExampleMonitor_Stop() {
	m := schedcheck.Start(context.Background(), schedcheck.WithInterval(time.Millisecond))
	time.Sleep(5 * time.Millisecond)
	a, b := m.Stop(), m.Stop()
	fmt.Println(a.Samples == b.Samples, a.End == b.End)
	// Output: true true
}

func ExampleReport() {
	r := schedcheck.Report{Samples: 3, Findings: schedcheck.Diagnose([]schedcheck.Snapshot{{GOMAXPROCS: 1, NumCPU: 2, Locked: -1}})}
	fmt.Println(len(r.Findings), r.Findings[0].Name)
	// Output: 1 gomaxprocs-one
}

func ExampleReport_String() {
	fmt.Println(schedcheck.Report{Samples: 12})
	// Output: schedcheck: no pitfall symptoms seen (12 samples)
}

// Options are passed to Diagnose or Start; each says which reads it.
// Here a p99 of 25 ms over 3 samples, reported by default, is not under
// a window of 2 samples and a 50 ms threshold.
func ExampleOption() {
	slow := series(3, nil, func(int) (time.Duration, uint64) { return 30 * time.Millisecond, 30 })
	opts := []schedcheck.Option{schedcheck.WithWindow(2), schedcheck.WithLatencyTail(50*time.Millisecond, 0)}
	fmt.Println(names(schedcheck.Diagnose(slow)))
	fmt.Println(names(schedcheck.Diagnose(slow, opts...)))
	// Output:
	// [sched-latency-tail]
	// []
}

// A Monitor sampling every 5 ms. How many samples it takes in 20 ms
// depends on how soon its goroutine gets a P; the first and the last are
// always taken.
func ExampleWithInterval() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	m := schedcheck.Start(ctx, schedcheck.WithInterval(5*time.Millisecond))
	<-ctx.Done()
	fmt.Println(m.Stop().Samples >= 2)
	// Output: true
}

// Three samples of locked threads are not a window of five; they are one
// of three.
func ExampleWithWindow() {
	pinned := series(3, func(i int, s *schedcheck.Snapshot) { s.Threads, s.Locked = 31, 20 }, nil)
	fmt.Println(names(schedcheck.Diagnose(pinned)))
	fmt.Println(names(schedcheck.Diagnose(pinned, schedcheck.WithWindow(3))))
	// Output:
	// []
	// [pinned-threads]
}

// 30 of every 1000 wake-ups waiting 25 ms or more make a p99 of 25 ms:
// reported at the default threshold, not at 50 ms.
func ExampleWithLatencyTail() {
	slow := series(3, nil, func(int) (time.Duration, uint64) { return 30 * time.Millisecond, 30 })
	fmt.Println(names(schedcheck.Diagnose(slow)))
	fmt.Println(names(schedcheck.Diagnose(slow, schedcheck.WithLatencyTail(50*time.Millisecond, 0))))
	// Output:
	// [sched-latency-tail]
	// []
}

// 400 more runnable goroutines each second, and waits that lengthen with
// them (from 4 ms to 20 ms for 3% of them): a growth of 1600 over the
// window is over the default 1000, not over 2000.
func ExampleWithGoroutineGrowth() {
	growing := series(5, func(i int, s *schedcheck.Snapshot) {
		s.Goroutines, s.Runnable = 40+400*int64(i), 1+400*int64(i)
	}, func(i int) (time.Duration, uint64) { return time.Duration(i+1) * 4 * time.Millisecond, 30 })
	fmt.Println(names(schedcheck.Diagnose(growing)))
	fmt.Println(names(schedcheck.Diagnose(growing, schedcheck.WithGoroutineGrowth(2000))))
	// Output:
	// [unbounded-goroutines]
	// []
}

// 4 goroutines locked to threads, on 8 Ps: the threads are 5 more than
// the Ps and system calls explain, within a slack of 8.
func ExampleWithThreadSlack() {
	pinned := series(5, func(i int, s *schedcheck.Snapshot) { s.Threads, s.Locked = 13, 4 }, nil)
	fmt.Println(names(schedcheck.Diagnose(pinned)))
	fmt.Println(names(schedcheck.Diagnose(pinned, schedcheck.WithThreadSlack(8))))
	// Output:
	// [pinned-threads]
	// []
}

// 3 locked goroutines on 8 Ps are under the default (half of GOMAXPROCS);
// a program that should have none can ask for 1.
func ExampleWithLockedGoroutines() {
	pinned := series(5, func(i int, s *schedcheck.Snapshot) { s.Threads, s.Locked = 13, 3 }, nil)
	fmt.Println(names(schedcheck.Diagnose(pinned)))
	fmt.Println(names(schedcheck.Diagnose(pinned, schedcheck.WithLockedGoroutines(1))))
	// Output:
	// []
	// [pinned-threads]
}

// 40 goroutines in cgo calls, each holding a thread, while cgo calls go on.
func ExampleWithCgoInFlight() {
	cgo := series(5, func(i int, s *schedcheck.Snapshot) {
		s.NotInGo, s.Threads, s.CgoCalls = 40, 52, 5000*int64(i)
	}, nil)
	fmt.Println(names(schedcheck.Diagnose(cgo)))
	fmt.Println(names(schedcheck.Diagnose(cgo, schedcheck.WithCgoInFlight(32))))
	// Output:
	// []
	// [cgo-threads]
}

// WithOnFinding reports a symptom while the program still runs. What this
// prints depends on the machine, so it is not run as a test.
func ExampleWithOnFinding() {
	m := schedcheck.Start(context.Background(), schedcheck.WithOnFinding(func(f schedcheck.Finding) {
		log.Printf("schedcheck: %s", f)
	}))
	defer m.Stop()
	// ... the program's work ...
}

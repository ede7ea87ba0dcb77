package schedcheck

import (
	"fmt"
	"slices"
	"time"
)

// Finding is one symptom Diagnose saw.
type Finding struct {
	// Name is stable, for programs to match on: gomaxprocs-one,
	// container-quota, pinned-threads, cgo-threads, unbounded-goroutines
	// or sched-latency-tail.
	Name string
	// Seen says what the snapshots showed, with the numbers.
	Seen string
	// Fix says what to do about it.
	Fix string
	// Metrics names the runtime/metrics and files the finding rests on.
	Metrics []string
}

// String returns the finding on one line: name, what was seen, what to do.
func (f Finding) String() string {
	return f.Name + ": " + f.Seen + " What to do: " + f.Fix
}

// Diagnose looks at snapshots, oldest first, and returns the symptoms they
// show, in the order gomaxprocs-one, container-quota, pinned-threads,
// cgo-threads, unbounded-goroutines, sched-latency-tail; nil when there
// are none. It reads only the last snapshots of the window (WithWindow);
// with fewer than that it checks the configuration (GOMAXPROCS against
// the CPUs and the quota) and, given two or more, the latency tail
// between the first and last, but no trend. Snapshots out of order (a
// Time before the one before it), or with counts of -1, make the rules
// that need them stay quiet rather than guess. Diagnose keeps no state:
// the same snapshots give the same findings.
func Diagnose(history []Snapshot, opts ...Option) []Finding {
	return diagnose(history, newConfig(opts))
}

func diagnose(history []Snapshot, c config) []Finding {
	if len(history) == 0 {
		return nil
	}
	w := history[max(0, len(history)-c.window):]
	full := len(w) == c.window
	var out []Finding
	for _, rule := range []func([]Snapshot, bool, config) (Finding, bool){
		gomaxprocsOne, containerQuota, pinnedThreads, cgoThreads, unboundedGoroutines, latencyTail,
	} {
		if f, ok := rule(w, full, c); ok {
			out = append(out, f)
		}
	}
	return out
}

// inOrder reports whether the snapshots' times never go backwards. The
// rules that read a change between snapshots (cgo calls made, goroutines
// grown, latencies recorded) need it: snapshots out of order, or a wall
// clock set back between snapshots recorded elsewhere, would make them
// report a trend over a negative time. Equal times pass, so snapshots
// built by hand without times still work.
func inOrder(w []Snapshot) bool {
	return slices.IsSortedFunc(w, func(a, b Snapshot) int { return a.Time.Compare(b.Time) })
}

// cpuNum formats a number of CPUs to about 3 figures, as %.3g does, but
// whole from 100 up: %.3g writes a machine's 1024 CPUs as 1.02e+03 (and
// 999.5 as 1e+03), where the same figures are wanted whole.
func cpuNum(n float64) string {
	if n >= 100 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%.3g", n)
}

// count writes n things: "1 thread", "2 threads". Thresholds set to 1 by
// the options, and a single goroutine in a system call, make counts of 1.
func count(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// areGoroutines writes "1 goroutine is" or "n goroutines are".
func areGoroutines(n int64) string {
	if n == 1 {
		return "1 goroutine is"
	}
	return count(n, "goroutine") + " are"
}

func cpuWord(n float64) string {
	if n == 1 {
		return "CPU"
	}
	return "CPUs"
}

// usable is the CPU the process may use: its CPUs, or its quota if lower.
func usable(s Snapshot) float64 {
	if s.CPUQuota > 0 {
		return min(float64(s.NumCPU), s.CPUQuota)
	}
	return float64(s.NumCPU)
}

func cpus(s Snapshot) string {
	if s.CPUQuota > 0 {
		return fmt.Sprintf("NumCPU %d, CPU quota %s", s.NumCPU, cpuNum(s.CPUQuota))
	}
	return fmt.Sprintf("NumCPU %d, no CPU quota", s.NumCPU)
}

// gomaxprocsOne: one P where more CPU is there to use. Nothing can be
// stolen: work stealing needs a second P.
func gomaxprocsOne(w []Snapshot, _ bool, _ config) (Finding, bool) {
	s := w[len(w)-1]
	if s.GOMAXPROCS != 1 || usable(s) <= 1 {
		return Finding{}, false
	}
	return Finding{
		Name: "gomaxprocs-one",
		Seen: fmt.Sprintf("GOMAXPROCS is 1 on a process that may use %s CPUs (%s): one P runs every goroutine, there is no other P to steal from, and the other CPUs stay idle.",
			cpuNum(usable(s)), cpus(s)),
		Fix: "remove the runtime.GOMAXPROCS(1) call or the GOMAXPROCS=1 setting; the default (the CPU count, lowered to the cgroup's quota since Go 1.25) suits almost every program. " +
			"If the 1 was there to order events, order them with channels or locks.",
		Metrics: []string{mGOMAXPROCS, "runtime.NumCPU", "cgroup cpu.max"},
	}, true
}

// containerQuota: more Ps than the cgroup lets run at once. The runtime's
// own default for the quota (rounded up, at least 2) is not reported.
func containerQuota(w []Snapshot, _ bool, _ config) (Finding, bool) {
	s := w[len(w)-1]
	// !(> 0) rather than <= 0: a hand-made NaN is no quota, as usable
	// and cpus take it.
	if !(s.CPUQuota > 0) || s.GOMAXPROCS <= quotaProcs(s.CPUQuota) {
		return Finding{}, false
	}
	from := ""
	if s.QuotaFile != "" {
		from = s.QuotaFile + "; "
	}
	return Finding{
		Name: "container-quota",
		Seen: fmt.Sprintf("GOMAXPROCS is %d but the cgroup allows %s %s (%sNumCPU %d): %d Ps share the time of %s %s, "+
			"so once the quota is spent the kernel stops every thread until the next period, which shows as scheduling latency.",
			s.GOMAXPROCS, cpuNum(s.CPUQuota), cpuWord(s.CPUQuota), from, s.NumCPU, s.GOMAXPROCS, cpuNum(s.CPUQuota), cpuWord(s.CPUQuota)),
		Fix: fmt.Sprintf("let the runtime choose: since Go 1.25 the default GOMAXPROCS follows the quota (here %d), so remove the runtime.GOMAXPROCS(n) call or the GOMAXPROCS environment setting; "+
			"before Go 1.25, use go.uber.org/automaxprocs or set GOMAXPROCS to the quota rounded up.", min(quotaProcs(s.CPUQuota), max(s.NumCPU, 1))),
		Metrics: []string{mGOMAXPROCS, "cgroup cpu.max / cpu.cfs_quota_us"},
	}, true
}

// excessThreads is the threads that neither the Ps nor the goroutines in
// system calls and cgo calls (each of which holds a thread) account for.
func excessThreads(s Snapshot) int64 {
	return s.Threads - int64(s.GOMAXPROCS) - max(s.NotInGo, 0)
}

// threadsUnexplained reports whether every snapshot in w holds more
// threads than its Ps, its goroutines outside Go and the slack explain.
func threadsUnexplained(w []Snapshot, c config) bool {
	for _, s := range w {
		if s.Threads < 0 || excessThreads(s) < c.slack {
			return false
		}
	}
	return true
}

// minLocked is how many locked goroutines make pinned-threads: half of
// GOMAXPROCS, and at least 3, so that a thread or two (a GUI's main thread
// locked in init, a C library's thread) is not reported. With 2 Ps, the
// two locked threads and the runtime's own (sysmon's, a spare) already
// make 4 more than GOMAXPROCS: the thread count does not keep such a
// program quiet, so the floor must.
func minLocked(s Snapshot, c config) int {
	if c.minLocked > 0 {
		return c.minLocked
	}
	return max(3, (s.GOMAXPROCS+1)/2) // half, rounded up: 5 of 9 Ps, not 4
}

// pinnedThreads: threads beyond what the Ps and system calls need, over
// the whole window, and a count of locked goroutines that explains them.
// Threads alone prove nothing: the runtime keeps every thread it made, so
// a burst of blocking system calls long ago leaves idle threads for good.
func pinnedThreads(w []Snapshot, full bool, c config) (Finding, bool) {
	if !full || !threadsUnexplained(w, c) {
		return Finding{}, false
	}
	s := w[len(w)-1]
	locked := -1
	for i := len(w) - 1; i >= 0 && locked < 0; i-- {
		locked = w[i].Locked
	}
	if locked < minLocked(s, c) {
		return Finding{}, false
	}
	queue := ""
	if s.Runnable >= 0 && s.Running >= 0 {
		queue = fmt.Sprintf(" At the last sample: %d runnable, %d running.", s.Runnable, s.Running)
	}
	return Finding{
		Name: "pinned-threads",
		Seen: fmt.Sprintf("%s locked to OS threads (runtime.LockOSThread); the process holds %d threads for GOMAXPROCS %d and %s in system calls or cgo, "+
			"at least %s more than those explain in each of the last %d samples. A locked goroutine runs only on its own thread: each one holds a thread, "+
			"and each time it wakes, a P must be handed over to that thread instead of running the goroutine where it woke.%s",
			areGoroutines(int64(locked)), s.Threads, s.GOMAXPROCS, count(max(s.NotInGo, 0), "goroutine"), count(minExcess(w), "thread"), len(w), queue),
		Fix: "unless a goroutine needs its thread (thread-local state in a C library, some system calls), drop LockOSThread and let the workers share one channel; " +
			"where thread affinity is needed, lock one goroutine and send it the work that needs the thread.",
		Metrics: []string{mThreads, mGOMAXPROCS, mNotInGo, "runtime.Stack (goroutines locked to thread)"},
	}, true
}

func minExcess(w []Snapshot) int64 {
	m := excessThreads(w[0])
	for _, s := range w[1:] {
		m = min(m, excessThreads(s))
	}
	return m
}

// cgoThreads: many goroutines in cgo calls (or system calls) in every
// sample, cgo calls being made, and threads to match. Each call in flight
// holds an OS thread; the runtime makes more as needed.
func cgoThreads(w []Snapshot, full bool, c config) (Finding, bool) {
	if !full || !inOrder(w) {
		return Finding{}, false
	}
	first, s := w[0], w[len(w)-1]
	least := s.NotInGo
	for _, x := range w {
		if x.NotInGo < c.cgoInFlight {
			return Finding{}, false // includes -1: a Go without the metric
		}
		least = min(least, x.NotInGo)
	}
	if s.Threads < s.NotInGo {
		return Finding{}, false
	}
	// Cgo calls started in the window, or, for calls that started before
	// it and have not returned, a dump that found them.
	made := first.CgoCalls >= 0 && s.CgoCalls > first.CgoCalls
	inCgo := inCgoCount(w)
	if !made && int64(inCgo) < c.cgoInFlight {
		return Finding{}, false
	}
	counted := ""
	if inCgo > 0 { // 0 is also a hand-made Snapshot's zero value
		counted = fmt.Sprintf("%d of them in cgo calls by a goroutine dump, ", inCgo)
	}
	return Finding{
		Name: "cgo-threads",
		Seen: fmt.Sprintf("%s in cgo calls or system calls (%sat least %d in each of the last %d samples, %s made meanwhile) and the process holds %d threads for GOMAXPROCS %d: "+
			"each call in flight holds an OS thread, and the P it leaves waits for sysmon to hand it on (runtime proc.go, retake).",
			areGoroutines(s.NotInGo), counted, least, len(w), count(max(s.CgoCalls-first.CgoCalls, 0), "cgo call"), s.Threads, s.GOMAXPROCS),
		Fix: "bound the cgo calls in flight: a semaphore (a buffered channel of N slots, N about GOMAXPROCS or what the C library can use in parallel) around each call, " +
			"or a fixed pool of goroutines that make them.",
		Metrics: metricsFor(inCgo > 0, []string{mNotInGo, mCgoCalls, mThreads, mGOMAXPROCS}, "runtime.Stack (goroutines in cgo calls)"),
	}, true
}

// metricsFor is names, with dump added if the finding rests on it.
func metricsFor(withDump bool, names []string, dump string) []string {
	if withDump {
		return append(names, dump)
	}
	return names
}

// inCgoCount is the last count of goroutines in cgo calls in w, -1 if
// none was counted.
func inCgoCount(w []Snapshot) int {
	for i := len(w) - 1; i >= 0; i-- {
		if w[i].InCgo >= 0 {
			return w[i].InCgo
		}
	}
	return -1
}

// cgoUncounted reports whether w would make cgo-threads but for cgo calls
// started in it: goroutines outside Go at the threshold in every sample,
// threads to match, and no cgo call started. Goroutines held in long cgo
// calls look like that, and so do goroutines in blocking system calls; a
// Monitor tells them apart with a goroutine dump.
func cgoUncounted(w []Snapshot, c config) bool {
	first, s := w[0], w[len(w)-1]
	for _, x := range w {
		if x.NotInGo < c.cgoInFlight {
			return false
		}
	}
	return inOrder(w) && s.Threads >= s.NotInGo && !(first.CgoCalls >= 0 && s.CgoCalls > first.CgoCalls)
}

// unboundedGoroutines: the goroutine count never falls over the window and
// grows by at least the threshold; the runnable count grows by at least
// half as much, so the growth is work waiting for a P rather than
// goroutines parked on I/O or timers (a server taking on connections); and
// the scheduling latency tail is at least tailFloor in the later half of
// the window and no lower than in the earlier half. A backlog that grows
// at a steady rate lengthens the wait at a steady rate, so the tail cannot
// be asked to double over a window late in the growth. Without the
// runnable count (before Go 1.26) the tail must double instead.
func unboundedGoroutines(w []Snapshot, full bool, c config) (Finding, bool) {
	if !full || len(w) < 3 || !inOrder(w) {
		return Finding{}, false
	}
	for i := range w {
		if w[i].Goroutines < 0 || i > 0 && w[i].Goroutines < w[i-1].Goroutines {
			return Finding{}, false
		}
	}
	first, s := w[0], w[len(w)-1]
	grew := s.Goroutines - first.Goroutines
	if grew < c.growth {
		return Finding{}, false
	}
	mid := len(w) / 2
	early, _ := latency(w[0], w[mid], 0.99)
	late, n := latency(w[mid], s, 0.99)
	if n == 0 || late < tailFloor || late < early {
		return Finding{}, false
	}
	runnable := ""
	if s.Runnable >= 0 && first.Runnable >= 0 {
		if 2*(s.Runnable-first.Runnable) < grew {
			return Finding{}, false
		}
		runnable = fmt.Sprintf("; runnable from %d to %d", first.Runnable, s.Runnable)
	} else if late < tailGrowth*early {
		return Finding{}, false
	}
	return Finding{
		Name: "unbounded-goroutines",
		Seen: fmt.Sprintf("goroutines grew in each of the last %d samples over %v, from %d to %d (+%d%s), while the p99 scheduling latency went from %v to %v: "+
			"goroutines are started faster than they finish.",
			len(w), round(s.Time.Sub(first.Time)), first.Goroutines, s.Goroutines, grew, runnable, round(early), round(late)),
		Fix: "bound the concurrency: a fixed pool of workers reading a channel, whose capacity pushes back on the producer, or a semaphore around the go statement (errgroup's SetLimit). " +
			"Work stealing spreads runnable goroutines over the Ps; it cannot run them faster than the CPUs do.",
		Metrics: []string{mGoroutines, mRunnable, mLatencies},
	}, true
}

// latencyTail: the window's p99 or p999 scheduling latency at or over its
// threshold, with enough wake-ups for the quantile to mean something.
func latencyTail(w []Snapshot, _ bool, c config) (Finding, bool) {
	if len(w) < 2 || !inOrder(w) {
		return Finding{}, false
	}
	first, s := w[0], w[len(w)-1]
	p99, n := latency(first, s, 0.99)
	p999, _ := latency(first, s, 0.999)
	hit99 := c.p99 > 0 && n >= minLatencyCount && p99 >= c.p99
	hit999 := c.p999 > 0 && n >= 10*minLatencyCount && p999 >= c.p999
	if !hit99 && !hit999 {
		return Finding{}, false
	}
	return Finding{
		Name: "sched-latency-tail",
		Seen: fmt.Sprintf("over the last %d samples (%v, %d sampled wake-ups) runnable goroutines waited for a P: p99 %v, p999 %v (thresholds %v, %v); GOMAXPROCS %d, %s.%s",
			len(w), round(s.Time.Sub(first.Time)), n, round(p99), round(p999), c.p99, c.p999, s.GOMAXPROCS, cpus(s), cpuUse(w)),
		Fix: "see what they wait behind with go tool trace (runtime/trace): long runnable stretches mean more runnable goroutines than Ps can run " +
			"(too few Ps, a CPU quota below GOMAXPROCS, or goroutines started faster than they finish); GC assists and stop-the-world pauses show there too. " +
			"A tail is seldom work stealing's own doing.",
		Metrics: []string{mLatencies},
	}, true
}

// starvedShare: a process with work waiting that ran on less than this
// share of the CPUs its Ps could use was kept off them by the OS.
const starvedShare = 0.75

// cpuUse says how many CPUs the process ran on over the window, of how
// many its Ps could use, and, if well under while goroutines were
// runnable in at least half the samples, that the OS had a hand in the
// wait; "" without CPU times. Without a runnable count it can only say
// what would follow if there was work waiting.
func cpuUse(w []Snapshot) string {
	first, s := w[0], w[len(w)-1]
	wall := s.Time.Sub(first.Time).Seconds()
	if first.CPUTime < 0 || s.CPUTime < first.CPUTime || wall <= 0 {
		return ""
	}
	used := (s.CPUTime - first.CPUTime).Seconds() / wall
	could := min(float64(s.GOMAXPROCS), usable(s))
	ran := fmt.Sprintf("the process ran on %.2f CPUs on average, of the %s its Ps could use", used, cpuNum(could))
	if used >= starvedShare*could {
		return " Meanwhile " + ran + "."
	}
	waiting, known := 0, true
	for _, x := range w {
		known = known && x.Runnable >= 0
		if x.Runnable > 0 {
			waiting++
		}
	}
	const osWait = "the OS kept its threads off the CPUs (other processes, or the cgroup's quota), and that is part of the wait."
	switch {
	case !known:
		return " Meanwhile " + ran + ": if it had work waiting, " + osWait
	case 2*waiting >= len(w):
		return fmt.Sprintf(" Goroutines were runnable in %d of the %d samples while %s: %s", waiting, len(w), ran, osWait)
	}
	return " Meanwhile " + ran + "."
}

// round shortens a duration for a message: 3 significant figures or so.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d
}

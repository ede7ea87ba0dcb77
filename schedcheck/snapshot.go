package schedcheck

import (
	"bytes"
	"io/fs"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
)

// Snapshot is the scheduler's state at one moment, as Sample reads it.
// Counts that this Go's runtime/metrics does not export are -1. Diagnose
// reads only these fields, so a Snapshot may also be built by hand, to
// test a rule or to diagnose numbers recorded elsewhere.
type Snapshot struct {
	Time time.Time

	GOMAXPROCS int // runtime.GOMAXPROCS(0), /sched/gomaxprocs:threads
	NumCPU     int // runtime.NumCPU(): the CPUs this process may run on
	// CPUQuota is the CPU bandwidth the process's cgroup allows, in CPUs
	// (cpu.max, or cpu.cfs_quota_us over cpu.cfs_period_us; the smallest
	// along the cgroup's ancestors); 0 when there is no quota or it could
	// not be read. QuotaFile names the file it came from.
	CPUQuota  float64
	QuotaFile string

	Goroutines int64 // /sched/goroutines:goroutines
	// The goroutines by state (Go 1.26 and later): ready to run but not
	// running, running, waiting, and in a system call or cgo call
	// (/sched/goroutines/{runnable,running,waiting,not-in-go}:goroutines).
	// The runtime counts them approximately, so they need not add up to
	// Goroutines.
	Runnable, Running, Waiting, NotInGo int64
	Created                             int64 // /sched/goroutines-created:goroutines, cumulative

	Threads  int64 // /sched/threads/total:threads: live threads the runtime owns
	CgoCalls int64 // /cgo/go-to-c-calls:calls, cumulative

	// CPUTime is the user and system CPU time all the process's threads
	// have used, from getrusage; -1 where that is not available. Against
	// the wall time between two snapshots it says how many CPUs the
	// process actually ran on, which tells a wait for the OS (other
	// processes, the cgroup's quota) from a wait for a P.
	CPUTime time.Duration

	// Latencies is /sched/latencies:seconds: how long goroutines sat
	// runnable before they ran, counted since the program started. Its
	// Buckets are the runtime's, shared by every Snapshot; Counts is a copy.
	Latencies metrics.Float64Histogram

	// Locked is the number of goroutines locked to an OS thread
	// (runtime.LockOSThread), as LockedGoroutines counts them, or -1 when
	// nobody counted. Sample never counts them; a Monitor does when the
	// thread count calls for it (see the package documentation).
	Locked int

	// InCgo is the number of goroutines in a cgo call, counted from the
	// same goroutine dump (a goroutine in a system call whose innermost
	// frame is a cgo call), or -1 when nobody counted. Sample never counts
	// them; a Monitor does when many goroutines stay outside Go while no
	// cgo call starts (see cgo-threads in the package documentation).
	InCgo int
}

// The metrics a Snapshot reads, in this order.
const (
	mGOMAXPROCS = "/sched/gomaxprocs:threads"
	mGoroutines = "/sched/goroutines:goroutines"
	mRunnable   = "/sched/goroutines/runnable:goroutines"
	mRunning    = "/sched/goroutines/running:goroutines"
	mWaiting    = "/sched/goroutines/waiting:goroutines"
	mNotInGo    = "/sched/goroutines/not-in-go:goroutines"
	mCreated    = "/sched/goroutines-created:goroutines"
	mThreads    = "/sched/threads/total:threads"
	mCgoCalls   = "/cgo/go-to-c-calls:calls"
	mLatencies  = "/sched/latencies:seconds"
)

var wanted = []string{mGOMAXPROCS, mGoroutines, mRunnable, mRunning, mWaiting, mNotInGo,
	mCreated, mThreads, mCgoCalls, mLatencies}

// present is the subset of wanted that this Go exports. Reading a name the
// runtime does not know is not an error but yields KindBad; probing once
// keeps each Sample to the names that exist.
var present = sync.OnceValue(func() []string {
	var out []string
	for _, d := range metrics.All() {
		if slices.Contains(wanted, d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
})

// rootFS is where Sample reads /proc and the cgroup files.
var rootFS fs.FS = os.DirFS("/")

// quotaTTL is how long a quota read is used for. Reading it takes two to
// five file reads, more than the rest of a sample costs together
// (docs/schedcheck.md), and a quota changes seldom; the runtime itself
// looks for a change about once a second (sysmon, proc.go).
const quotaTTL = time.Second

// quotaCache keeps the last quota read from fsys for quotaTTL.
type quotaCache struct {
	fsys fs.FS
	mu   sync.Mutex
	at   time.Time
	cpus float64
	file string
}

func (q *quotaCache) get(now time.Time) (float64, string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.at.IsZero() || now.Sub(q.at) >= quotaTTL || now.Before(q.at) {
		q.cpus, q.file = cpuQuota(q.fsys)
		q.at = now
	}
	return q.cpus, q.file
}

// rootQuota is the quota as Sample and every Monitor on the real root
// read it.
var rootQuota = &quotaCache{fsys: rootFS}

// Sample reads the scheduler's metrics and the cgroup's CPU quota and
// returns them. It is safe to call from any goroutine at any time; it does
// not stop the world. What it costs is measured in docs/schedcheck.md
// (BenchmarkSample): a runtime/metrics read of ten metrics, one of them a
// histogram whose counts it copies, and a getrusage system call. The
// cgroup's quota takes two to five small file reads under /proc and
// /sys/fs/cgroup, which cost more than the rest, so it is read at most
// once a second and the last value used in between. A file that cannot be
// read leaves CPUQuota at 0; Sample never fails.
func Sample() Snapshot { return sample(rootQuota) }

func sample(quota *quotaCache) Snapshot {
	s := Snapshot{
		Time: time.Now(), NumCPU: runtime.NumCPU(), Locked: -1, InCgo: -1,
		Goroutines: -1, Runnable: -1, Running: -1, Waiting: -1, NotInGo: -1,
		Created: -1, Threads: -1, CgoCalls: -1, CPUTime: cpuTime(),
	}
	names := present()
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	metrics.Read(samples)
	for _, m := range samples {
		switch m.Value.Kind() {
		case metrics.KindUint64:
			v := int64(min(m.Value.Uint64(), math.MaxInt64))
			switch m.Name {
			case mGOMAXPROCS:
				s.GOMAXPROCS = int(v)
			case mGoroutines:
				s.Goroutines = v
			case mRunnable:
				s.Runnable = v
			case mRunning:
				s.Running = v
			case mWaiting:
				s.Waiting = v
			case mNotInGo:
				s.NotInGo = v
			case mCreated:
				s.Created = v
			case mThreads:
				s.Threads = v
			case mCgoCalls:
				s.CgoCalls = v
			}
		case metrics.KindFloat64Histogram:
			h := m.Value.Float64Histogram()
			s.Latencies = metrics.Float64Histogram{Buckets: h.Buckets, Counts: slices.Clone(h.Counts)}
		}
	}
	if s.GOMAXPROCS == 0 { // a Go without the metric
		s.GOMAXPROCS = runtime.GOMAXPROCS(0)
	}
	s.CPUQuota, s.QuotaFile = quota.get(s.Time)
	return s
}

// LockedGoroutines counts the goroutines locked to an OS thread by
// runtime.LockOSThread. It reads every goroutine's stack header with
// runtime.Stack, which stops the world for as long as it takes to walk all
// goroutines: call it when a thread count already points at locked
// threads, not on every sample. It counts from the header text the runtime
// prints (", locked to thread", runtime/traceback.go), which is not a
// stable API: a runtime that stopped printing it would make it return 0.
// The goroutine calling it counts if it is locked. The dump is cut at
// 64 MB, as net/http/pprof's goroutine dump is: in a program with
// hundreds of thousands of goroutines, only those in the first 64 MB are
// counted.
func LockedGoroutines() int {
	locked, _ := countDump(goroutineDump())
	return locked
}

// goroutineDump returns every goroutine's stack, as runtime.Stack writes
// them, cut at 64 MB.
func goroutineDump() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// countLocked counts goroutine headers ("goroutine 7 [chan receive,
// locked to thread]:") that say locked to thread.
func countLocked(dump []byte) int {
	locked, _ := countDump(dump)
	return locked
}

// countDump counts, in a goroutine dump, the goroutines locked to a thread
// (their header says "locked to thread]") and those in a cgo call: in a
// system call ("[syscall"), their innermost frame a cgo call, which the
// runtime prints as the generated pkg._Cfunc_name (or _C2func_name, for a
// call that returns errno), or as runtime.cgocall where runtime frames are
// shown (GOTRACEBACK=system).
func countDump(dump []byte) (locked, inCgo int) {
	top, syscall := false, false // the next line is a goroutine's innermost frame
	for line := range bytes.Lines(dump) {
		if bytes.HasPrefix(line, []byte("goroutine ")) {
			if bytes.Contains(line, []byte("locked to thread]")) {
				locked++
			}
			top, syscall = true, bytes.Contains(line, []byte("[syscall"))
			continue
		}
		if top && syscall && (bytes.Contains(line, []byte("._Cfunc_")) || bytes.Contains(line, []byte("._C2func_")) ||
			bytes.HasPrefix(line, []byte("runtime.cgocall(")) || bytes.HasPrefix(line, []byte("runtime.asmcgocall"))) {
			inCgo++
		}
		top = false
	}
	return locked, inCgo
}

// latency returns the q-quantile (0 < q < 1) of the scheduling latencies
// recorded between two snapshots and how many there were. The quantile is
// the lower edge of the bucket it falls in, so it errs low: a threshold it
// crosses was crossed. It is 0 with no latencies, when cur has no
// histogram, or when the two histograms do not match; from a prev without
// one (the zero Snapshot) it counts every latency since the program
// started.
func latency(prev, cur Snapshot, q float64) (time.Duration, uint64) {
	c, p := cur.Latencies.Counts, prev.Latencies.Counts
	if len(c) == 0 || (len(p) != 0 && len(p) != len(c)) || len(cur.Latencies.Buckets) != len(c)+1 {
		return 0, 0
	}
	var total uint64
	for i := range c {
		total += sub(c[i], at(p, i))
	}
	if total == 0 {
		return 0, 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i := range c {
		seen += sub(c[i], at(p, i))
		if seen >= rank {
			lo := cur.Latencies.Buckets[i]
			if math.IsInf(lo, -1) || lo < 0 {
				lo = 0
			}
			return time.Duration(lo * float64(time.Second)), total
		}
	}
	return 0, total
}

// sub is a-b, or 0 for snapshots passed in the wrong order.
func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

func at(s []uint64, i int) uint64 {
	if i < len(s) {
		return s[i]
	}
	return 0
}

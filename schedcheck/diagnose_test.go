package schedcheck

import (
	"math"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"
)

// testBuckets are histogram bucket edges in seconds, coarser than the
// runtime's but of the same shape: -Inf first, +Inf last.
var testBuckets = []float64{math.Inf(-1), 0, 1e-6, 10e-6, 100e-6, 1e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 200e-3, 1, math.Inf(1)}

// waits is one interval's scheduling latencies: a wait, and how many
// goroutines waited that long.
type waits map[time.Duration]uint64

// calm is a busy, healthy interval: 1000 short waits and a few of a 5 ms
// time slice.
var calm = waits{50 * time.Microsecond: 1000, 5 * time.Millisecond: 5}

// healthy is a busy program on 4 CPUs that keeps up.
var healthy = Snapshot{
	GOMAXPROCS: 4, NumCPU: 4, Goroutines: 50, Runnable: 2, Running: 4, Waiting: 44,
	NotInGo: 1, Created: 100, Threads: 9, CgoCalls: 0, CPUTime: -1, Locked: -1,
}

// series returns n snapshots a second apart: base, changed by f(i, s),
// with latencies accumulated from per(i) (calm if per is nil).
func series(n int, base Snapshot, f func(i int, s *Snapshot), per func(i int) waits) []Snapshot {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	counts := make([]uint64, len(testBuckets)-1)
	var out []Snapshot
	for i := range n {
		s := base
		s.Time = t0.Add(time.Duration(i) * time.Second)
		w := calm
		if per != nil {
			w = per(i)
		}
		for d, k := range w {
			b := 0
			for j := range counts {
				if testBuckets[j] <= d.Seconds() {
					b = j
				}
			}
			counts[b] += k
		}
		s.Latencies = metrics.Float64Histogram{Buckets: testBuckets, Counts: slices.Clone(counts)}
		if f != nil {
			f(i, &s)
		}
		out = append(out, s)
	}
	return out
}

func one(f func(s *Snapshot)) []Snapshot {
	return series(1, healthy, func(_ int, s *Snapshot) { f(s) }, nil)
}

func TestDiagnose(t *testing.T) {
	// pinned: 10 locked workers on 4 Ps, each holding its thread.
	pinned := func(i int, s *Snapshot) { s.Threads = 4 + 10 + 3; s.NotInGo = 0; s.Locked = 10 }
	// growing: 300 more goroutines every second, most of them runnable.
	growing := func(i int, s *Snapshot) { s.Goroutines = 100 + 300*int64(i); s.Runnable = 280 * int64(i) }
	// backlog: waits that lengthen as the run queues fill.
	backlog := func(i int) waits {
		return waits{50 * time.Microsecond: 500, time.Duration(1<<i) * 5 * time.Millisecond: 200}
	}
	for _, tc := range []struct {
		name string
		hist []Snapshot
		opts []Option
		want []string // finding names, in order
		seen []string // text every finding's Seen must hold
	}{
		{name: "healthy busy program", hist: series(10, healthy, nil, nil)},
		{name: "no snapshots"},

		{name: "GOMAXPROCS 1 on 4 CPUs", hist: one(func(s *Snapshot) { s.GOMAXPROCS = 1 }),
			want: []string{"gomaxprocs-one"}, seen: []string{"GOMAXPROCS is 1", "may use 4 CPUs", "NumCPU 4, no CPU quota"}},
		{name: "GOMAXPROCS 1 on 1024 CPUs", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU = 1, 1024 }),
			want: []string{"gomaxprocs-one"}, seen: []string{"may use 1024 CPUs"}},
		{name: "GOMAXPROCS 2048 under a 1500.5-CPU quota", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU, s.CPUQuota = 2048, 2048, 1500.5 }),
			want: []string{"container-quota"}, seen: []string{"allows 1500 CPUs", "the time of 1500 CPUs", "(here 1501)"}},
		{name: "GOMAXPROCS 1024 under a 999.5-CPU quota", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU, s.CPUQuota = 1024, 1024, 999.5 }),
			want: []string{"container-quota"}, seen: []string{"allows 1000 CPUs"}},
		{name: "GOMAXPROCS 1 on 1 CPU", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU = 1, 1 })},
		{name: "GOMAXPROCS 1 under a 1-CPU quota", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU, s.CPUQuota = 1, 16, 1 })},
		{name: "GOMAXPROCS 1 under a 1.5-CPU quota", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU, s.CPUQuota = 1, 16, 1.5 }),
			want: []string{"gomaxprocs-one"}, seen: []string{"may use 1.5 CPUs", "CPU quota 1.5"}},

		{name: "GOMAXPROCS 64 under a 2-CPU quota",
			hist: one(func(s *Snapshot) {
				s.GOMAXPROCS, s.NumCPU, s.CPUQuota, s.QuotaFile = 64, 64, 2, "/sys/fs/cgroup/pod/cpu.max"
			}),
			want: []string{"container-quota"},
			seen: []string{"GOMAXPROCS is 64", "allows 2 CPUs", "/sys/fs/cgroup/pod/cpu.max", "NumCPU 64"}},
		{name: "GOMAXPROCS 4 under a 1-CPU quota", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.CPUQuota = 4, 1 }),
			want: []string{"container-quota"}, seen: []string{"GOMAXPROCS is 4", "allows 1 CPU (NumCPU 4)", "(here 2)"}},
		{name: "GOMAXPROCS 3 under a 2.5-CPU quota (the runtime's default)", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.CPUQuota = 3, 2.5 })},
		{name: "GOMAXPROCS 2 under a 0.5-CPU quota (the runtime's floor)", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.CPUQuota = 2, 0.5 })},
		// A cpu.max of "9223372036854775807 1" (no kernel writes it, but
		// a file can say it), or a hand-made quota of +Inf or NaN.
		{name: "GOMAXPROCS 4 under a quota of 9.2e18 CPUs", hist: one(func(s *Snapshot) { s.CPUQuota = 9223372036854775807 })},
		{name: "GOMAXPROCS 4 under a quota of +Inf", hist: one(func(s *Snapshot) { s.CPUQuota = math.Inf(1) })},
		{name: "GOMAXPROCS 4 under a quota of NaN", hist: one(func(s *Snapshot) { s.CPUQuota = math.NaN() })},
		{name: "GOMAXPROCS 64 with no quota", hist: one(func(s *Snapshot) { s.GOMAXPROCS, s.NumCPU = 64, 64 })},

		{name: "locked workers holding threads", hist: series(5, healthy, pinned, nil),
			want: []string{"pinned-threads"}, seen: []string{"10 goroutines are locked", "17 threads for GOMAXPROCS 4", "at least 13 threads more", "last 5 samples"}},
		{name: "locked count carried from an earlier sample",
			hist: series(5, healthy, func(i int, s *Snapshot) { pinned(i, s); s.Locked = []int{-1, 10, -1, -1, -1}[i] }, nil),
			want: []string{"pinned-threads"}},
		{name: "threads but nobody counted locked goroutines",
			hist: series(5, healthy, func(i int, s *Snapshot) { pinned(i, s); s.Locked = -1 }, nil)},
		{name: "threads left idle by old system calls",
			hist: series(5, healthy, func(i int, s *Snapshot) { pinned(i, s); s.Locked = 0 }, nil)},
		// The main thread locked in init for a GUI, and a library's
		// thread: a thread or two, which the default does not report.
		// With 2 Ps, the locked threads and the runtime's own already make
		// 4 more than GOMAXPROCS (7 threads, measured on Go 1.26).
		{name: "a GUI thread and a library thread on 2 Ps",
			hist: series(5, healthy, func(i int, s *Snapshot) { s.GOMAXPROCS, s.Threads, s.NotInGo, s.Locked = 2, 7, 0, 2 }, nil)},
		{name: "a GUI thread and a library thread on 4 Ps",
			hist: series(5, healthy, func(i int, s *Snapshot) { s.Threads, s.NotInGo, s.Locked = 9, 0, 2 }, nil)},
		{name: "one locked goroutine", hist: series(5, healthy, func(i int, s *Snapshot) { pinned(i, s); s.Locked = 1 }, nil)},
		// "At least half of GOMAXPROCS": 4 of 9 Ps is less than half.
		{name: "4 locked goroutines on 9 Ps",
			hist: series(5, healthy, func(i int, s *Snapshot) { s.GOMAXPROCS, s.Threads, s.NotInGo, s.Locked = 9, 9+4+4, 0, 4 }, nil)},
		{name: "5 locked goroutines on 9 Ps",
			hist: series(5, healthy, func(i int, s *Snapshot) { s.GOMAXPROCS, s.Threads, s.NotInGo, s.Locked = 9, 9+4+5, 0, 5 }, nil),
			want: []string{"pinned-threads"}},
		{name: "locked, but threads fell back in one sample",
			hist: series(5, healthy, func(i int, s *Snapshot) {
				pinned(i, s)
				if i == 2 {
					s.Threads = 6
				}
			}, nil)},
		{name: "locked, fewer samples than the window", hist: series(4, healthy, pinned, nil)},
		{name: "threads explained by system calls",
			hist: series(5, healthy, func(i int, s *Snapshot) { pinned(i, s); s.NotInGo = 12 }, nil)},
		{name: "one locked goroutine is enough when asked", hist: series(5, healthy, func(i int, s *Snapshot) { pinned(i, s); s.Locked = 1 }, nil),
			opts: []Option{WithLockedGoroutines(1)}, want: []string{"pinned-threads"}},

		{name: "hundreds of cgo calls in flight",
			hist: series(5, healthy, func(i int, s *Snapshot) {
				s.NotInGo, s.Threads, s.CgoCalls = 200+10*int64(i), 210+10*int64(i), 1000*int64(i)
			}, nil),
			want: []string{"cgo-threads"}, seen: []string{"240 goroutines are in cgo calls", "at least 200 in each", "4000 cgo calls", "250 threads"}},
		{name: "blocking system calls, no cgo",
			hist: series(5, healthy, func(i int, s *Snapshot) { s.NotInGo, s.Threads = 200, 210 }, nil)},
		{name: "cgo burst over in one sample",
			hist: series(5, healthy, func(i int, s *Snapshot) {
				s.NotInGo, s.Threads, s.CgoCalls = 200, 210, 1000*int64(i)
				if i == 3 {
					s.NotInGo = 3
				}
			}, nil)},
		{name: "cgo calls, metric missing",
			hist: series(5, healthy, func(i int, s *Snapshot) { s.NotInGo, s.Threads, s.CgoCalls = -1, 210, 1000*int64(i) }, nil)},

		{name: "goroutines outrunning the Ps", hist: series(5, healthy, growing, backlog),
			want: []string{"unbounded-goroutines", "sched-latency-tail"},
			seen: []string{"from 100 to 1300 (+1200; runnable from 0 to 1120)", "went from 10ms to 50ms"}},
		{name: "goroutines outrunning the Ps, late in the growth",
			hist: series(5, healthy, func(i int, s *Snapshot) { growing(i+20, s) }, func(i int) waits {
				return waits{50 * time.Microsecond: 500, time.Duration(100+5*i) * time.Millisecond: 200}
			}),
			want: []string{"unbounded-goroutines", "sched-latency-tail"}},
		{name: "goroutines growing, parked on I/O (a server taking on connections)",
			hist: series(5, healthy, func(i int, s *Snapshot) { growing(i, s); s.Runnable = 3 }, backlog),
			want: []string{"sched-latency-tail"}},
		{name: "goroutines outrunning the Ps, no runnable count",
			hist: series(5, healthy, func(i int, s *Snapshot) { growing(i, s); s.Runnable = -1 }, backlog),
			want: []string{"unbounded-goroutines", "sched-latency-tail"}},
		{name: "goroutines growing, no runnable count, tail not doubling",
			hist: series(5, healthy, func(i int, s *Snapshot) { growing(i+20, s); s.Runnable = -1 }, func(i int) waits {
				return waits{50 * time.Microsecond: 500, time.Duration(100+5*i) * time.Millisecond: 200}
			}),
			want: []string{"sched-latency-tail"}},
		{name: "goroutines growing, tail shrinking",
			hist: series(5, healthy, growing, func(i int) waits {
				return waits{50 * time.Microsecond: 500, time.Duration(1<<(4-i)) * 5 * time.Millisecond: 200}
			}),
			want: []string{"sched-latency-tail"}},
		{name: "goroutines growing with a flat tail (taking on load)", hist: series(5, healthy, growing, nil)},
		{name: "goroutines growing, but not by enough", hist: series(5, healthy, growing, backlog),
			opts: []Option{WithGoroutineGrowth(5000)}, want: []string{"sched-latency-tail"}},
		{name: "goroutines dip once", hist: series(5, healthy, func(i int, s *Snapshot) {
			growing(i, s)
			if i == 2 {
				s.Goroutines = 50
			}
		}, backlog), want: []string{"sched-latency-tail"}},
		// A count of -1 (a metric the recording Go lacked) must silence the
		// rule, not read as a count: from -1 the growth here would be
		// 1301, over the threshold; the counts known grew by 1200.
		{name: "goroutines growing, first count unknown", hist: series(5, healthy, func(i int, s *Snapshot) {
			growing(i, s)
			if i == 0 {
				s.Goroutines = -1
			}
		}, backlog), opts: []Option{WithGoroutineGrowth(1201)}, want: []string{"sched-latency-tail"}},

		{name: "p99 over 25 ms", hist: series(3, healthy, nil, func(int) waits { return waits{50 * time.Microsecond: 190, 30 * time.Millisecond: 10} }),
			want: []string{"sched-latency-tail"}, seen: []string{"400 sampled wake-ups", "p99 25ms"}},
		{name: "p99 over 25 ms, the process kept off the CPUs",
			hist: series(3, healthy, func(i int, s *Snapshot) { s.CPUTime = time.Duration(i) * time.Second / 2 }, func(int) waits { return waits{50 * time.Microsecond: 190, 30 * time.Millisecond: 10} }),
			want: []string{"sched-latency-tail"}, seen: []string{"Goroutines were runnable in 3 of the 3 samples while the process ran on 0.50 CPUs on average, of the 4 its Ps could use: the OS kept"}},
		{name: "p99 over 25 ms, the process off the CPUs, nothing runnable",
			hist: series(3, healthy, func(i int, s *Snapshot) { s.CPUTime, s.Runnable = time.Duration(i)*time.Second/2, 0 }, func(int) waits { return waits{50 * time.Microsecond: 190, 30 * time.Millisecond: 10} }),
			want: []string{"sched-latency-tail"}, seen: []string{"Meanwhile the process ran on 0.50 CPUs on average, of the 4 its Ps could use."}},
		{name: "p99 over 25 ms, the process off the CPUs, no runnable count",
			hist: series(3, healthy, func(i int, s *Snapshot) { s.CPUTime, s.Runnable = time.Duration(i)*time.Second/2, -1 }, func(int) waits { return waits{50 * time.Microsecond: 190, 30 * time.Millisecond: 10} }),
			want: []string{"sched-latency-tail"}, seen: []string{"ran on 0.50 CPUs on average, of the 4 its Ps could use: if it had work waiting, the OS kept"}},
		{name: "p99 over 25 ms, the process on all its CPUs",
			hist: series(3, healthy, func(i int, s *Snapshot) { s.CPUTime = time.Duration(i) * 4 * time.Second }, func(int) waits { return waits{50 * time.Microsecond: 190, 30 * time.Millisecond: 10} }),
			want: []string{"sched-latency-tail"}, seen: []string{"ran on 4.00 CPUs on average, of the 4 its Ps could use."}},
		{name: "p99 over 25 ms, too few wake-ups", hist: series(3, healthy, nil, func(int) waits { return waits{50 * time.Microsecond: 20, 30 * time.Millisecond: 10} })},
		{name: "p999 over 100 ms", hist: series(2, healthy, nil, func(int) waits { return waits{50 * time.Microsecond: 1997, 150 * time.Millisecond: 3} }),
			want: []string{"sched-latency-tail"}, seen: []string{"p999 100ms"}},
		{name: "p999 over 100 ms, check off", hist: series(2, healthy, nil, func(int) waits { return waits{50 * time.Microsecond: 1997, 150 * time.Millisecond: 3} }),
			opts: []Option{WithLatencyTail(25*time.Millisecond, 0)}},
		{name: "saturated Ps: waits of one time slice", hist: series(5, healthy, nil, func(int) waits { return waits{50 * time.Microsecond: 500, 10 * time.Millisecond: 500} })},
		{name: "a tail older than the window", hist: series(8, healthy, nil, func(i int) waits {
			if i == 0 {
				return waits{time.Second: 500}
			}
			return calm
		})},
		{name: "snapshots in the wrong order", hist: reversed(series(5, healthy, growing, backlog))},
		// Counts in order but times running backwards (a wall clock set
		// back between snapshots recorded elsewhere): a trend over a
		// negative time is no trend, and its text would say "over -4s".
		{name: "times running backwards", hist: backwards(series(5, healthy, func(i int, s *Snapshot) {
			growing(i, s)
			s.NotInGo, s.Threads, s.CgoCalls = 200, 210, 1000*int64(i)
		}, backlog))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Diagnose(tc.hist, tc.opts...)
			var names []string
			for _, f := range got {
				names = append(names, f.Name)
				for _, s := range tc.seen {
					if f.Name == tc.want[0] && !strings.Contains(f.Seen+" "+f.Fix, s) {
						t.Errorf("%s: lacks %q: %s", f.Name, s, f)
					}
				}
				if f.Fix == "" || len(f.Metrics) == 0 {
					t.Errorf("%s: no Fix or Metrics: %+v", f.Name, f)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("got %v, want %v\n%v", names, tc.want, got)
			}
		})
	}
}

func reversed(s []Snapshot) []Snapshot {
	s = slices.Clone(s)
	slices.Reverse(s)
	return s
}

// backwards gives the snapshots times a second apart that run backwards,
// leaving everything else in order.
func backwards(s []Snapshot) []Snapshot {
	s = slices.Clone(s)
	for i := range s {
		s[i].Time = s[0].Time.Add(-time.Duration(i) * time.Second)
	}
	return s
}

// TestFindingsCountInEnglish: a count of one reads "1 goroutine is", not
// "1 goroutines are", in the findings' text; options that lower the
// thresholds to 1 make such counts, and a program with one goroutine in a
// system call makes one at the defaults.
func TestFindingsCountInEnglish(t *testing.T) {
	one := func(_ int, s *Snapshot) {
		s.GOMAXPROCS, s.Threads, s.NotInGo, s.Locked = 2, 4, 1, 1
		s.CgoCalls = int64(s.Time.Second()) // one call a second
	}
	hist := series(5, healthy, one, nil)
	got := Diagnose(hist, WithThreadSlack(1), WithLockedGoroutines(1), WithCgoInFlight(1))
	if len(got) != 2 || got[0].Name != "pinned-threads" || got[1].Name != "cgo-threads" {
		t.Fatalf("findings %v, want pinned-threads and cgo-threads", got)
	}
	for _, want := range []string{"1 goroutine is locked", "and 1 goroutine in system calls", "at least 1 thread more"} {
		if !strings.Contains(got[0].Seen, want) {
			t.Errorf("pinned-threads says %q, want %q in it", got[0].Seen, want)
		}
	}
	for _, want := range []string{"1 goroutine is in cgo calls", "4 cgo calls made"} {
		if !strings.Contains(got[1].Seen, want) {
			t.Errorf("cgo-threads says %q, want %q in it", got[1].Seen, want)
		}
	}
	hist = series(5, healthy, func(i int, s *Snapshot) { one(i, s); s.CgoCalls = min(int64(i), 1) }, nil)
	for _, f := range Diagnose(hist, WithThreadSlack(1), WithLockedGoroutines(1), WithCgoInFlight(1)) {
		if f.Name == "cgo-threads" && !strings.Contains(f.Seen, " 1 cgo call made") {
			t.Errorf("cgo-threads says %q, want \"1 cgo call made\" in it", f.Seen)
		}
	}
	for _, f := range got {
		for _, bad := range []string{" 1 goroutines", " 1 threads", " 1 cgo calls"} {
			if strings.Contains(" "+f.Seen, bad) {
				t.Errorf("%s says %q", f.Name, bad)
			}
		}
	}
}

// TestCgoThreadsFromLongCalls: goroutines each held in one long cgo call
// (a C function that blocks) start no call in the window, so the cgo
// call count does not move; a count of goroutines in cgo calls from a
// goroutine dump (InCgo, which a Monitor takes) shows them instead. A
// count of 0, the zero value of a hand-made Snapshot, is no evidence
// either way, and blocking system calls without cgo stay quiet.
func TestCgoThreadsFromLongCalls(t *testing.T) {
	stuck := func(inCgo int) func(int, *Snapshot) {
		return func(i int, s *Snapshot) {
			s.NotInGo, s.Threads, s.CgoCalls, s.InCgo = 200, 206, 200, -1
			if i == 4 {
				s.InCgo = inCgo
			}
		}
	}
	got := Diagnose(series(5, healthy, stuck(190), nil))
	if len(got) != 1 || got[0].Name != "cgo-threads" || !strings.Contains(got[0].Seen, "190 of them in cgo calls") {
		t.Errorf("200 goroutines outside Go, 190 of them in long cgo calls: %v", got)
	} else if m := got[0].Metrics; m[len(m)-1] != "runtime.Stack (goroutines in cgo calls)" {
		t.Errorf("metrics %v do not name the goroutine dump", m)
	}
	for _, n := range []int{-1, 0, 63} {
		if got := Diagnose(series(5, healthy, stuck(n), nil)); len(got) != 0 {
			t.Errorf("InCgo %d, no cgo call made: %v", n, got)
		}
	}
}

func TestCountDump(t *testing.T) {
	dump := "goroutine 1 [running]:\nmain.main()\n\t/m/main.go:22 +0x70\n\n" +
		"goroutine 19 [syscall]:\nmain._Cfunc_csleep(0x7a120)\n\t_cgo_gotypes.go:48 +0x3a\ncreated by main.main in goroutine 1\n\t/m/main.go:17 +0x1e\n\n" +
		"goroutine 20 [syscall]:\nsyscall.Syscall(0x23, 0x2725f5418fc0, 0x0, 0x0)\n\t/go/src/syscall/syscall_linux.go:74 +0x25\n" +
		"syscall.Nanosleep(0x0?, 0x0?)\n\t/go/src/syscall/zsyscall_linux_amd64.go:690 +0x33\n\n" +
		"goroutine 21 [syscall, locked to thread]:\nmain._Cfunc_csleep(0x7a120)\n\t_cgo_gotypes.go:48 +0x3a\nmain.main.func2()\n\t/m/main.go:19 +0x1f\n\n" +
		"goroutine 22 [syscall]:\ngithub.com/x/y._C2func_read(0x1)\n\t_cgo_gotypes.go:61 +0x4a\n\n" +
		// Back in Go after a cgo call, blocked on a channel: not in cgo.
		"goroutine 23 [chan receive]:\nmain.worker()\n\t/m/main.go:30 +0x20\nmain._Cfunc_cb()\n\t_cgo_gotypes.go:70 +0x1\n\n" +
		"goroutine 24 [select, locked to thread]:\nmain.gui()\n"
	if locked, inCgo := countDump([]byte(dump)); locked != 2 || inCgo != 3 {
		t.Fatalf("countDump = %d locked, %d in cgo; want 2 and 3", locked, inCgo)
	}
}

package schedcheck

import (
	"fmt"
	"io/fs"
	"time"
)

// Option adjusts Diagnose's thresholds or a Monitor. Each option says which
// of the two reads it; Diagnose ignores the Monitor's options. An option
// given a value it cannot use panics when it is created, naming itself, as
// time.NewTicker does with a non-positive interval: such a value is a
// mistake in the program, not in what it measures.
type Option func(*config)

type config struct {
	interval    time.Duration
	window      int
	p99, p999   time.Duration
	growth      int64
	slack       int64
	minLocked   int // 0: max(3, half of GOMAXPROCS rounded up)
	cgoInFlight int64
	onFinding   func(Finding)
	fsys        fs.FS
}

// The defaults, as the package documentation states them.
const (
	defaultInterval    = time.Second
	defaultWindow      = 5
	defaultP99         = 25 * time.Millisecond
	defaultP999        = 100 * time.Millisecond
	defaultGrowth      = 1000
	defaultSlack       = 4
	defaultCgoInFlight = 64
	// For unbounded-goroutines the later half of the window's p99
	// scheduling latency must be at least tailFloor (a rise from 20 µs to
	// 40 µs is noise, not a backlog) and, without the runnable count,
	// tailGrowth times the earlier half's.
	tailGrowth = 2
	tailFloor  = time.Millisecond
	// The sched-latency-tail rule needs this many wake-ups in the window
	// for a p99, and ten times as many for a p999, so that a handful of
	// slow wake-ups in an idle program do not make a tail.
	minLatencyCount = 100
	// A Monitor does not count locked goroutines in a program with more
	// goroutines than this: the count stops the world while it walks them.
	maxScanGoroutines = 2000
	// While the threads stay unexplained, a Monitor counts the locked
	// goroutines again every rescanWindows windows even if no thread was
	// added: locked goroutines can take over threads left idle.
	rescanWindows = 10
)

func newConfig(opts []Option) config {
	c := config{
		interval: defaultInterval, window: defaultWindow,
		p99: defaultP99, p999: defaultP999, growth: defaultGrowth,
		slack: defaultSlack, cgoInFlight: defaultCgoInFlight, fsys: rootFS,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithInterval sets how often a Monitor samples; the default is 1 s. It
// panics if d is not positive. Diagnose ignores it.
func WithInterval(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("schedcheck: WithInterval(%v): the interval must be positive", d))
	}
	return func(c *config) { c.interval = d }
}

// WithWindow sets how many consecutive samples a symptom that is a trend
// (pinned-threads, cgo-threads, unbounded-goroutines) must hold over, and
// over how many samples sched-latency-tail measures; the default is 5.
// Diagnose looks at the last n snapshots it is given; a Monitor keeps that
// many. It panics if n < 2. unbounded-goroutines compares the window's
// earlier and later halves and needs n >= 3: with n = 2 it is never
// reported.
func WithWindow(n int) Option {
	if n < 2 {
		panic(fmt.Sprintf("schedcheck: WithWindow(%d): a window needs at least 2 samples", n))
	}
	return func(c *config) { c.window = n }
}

// WithLatencyTail sets the scheduling latency quantiles over the window at
// or above which sched-latency-tail is reported: p99 (default 25 ms) and
// p999 (default 100 ms). A zero threshold turns that quantile's check off;
// a negative one panics.
func WithLatencyTail(p99, p999 time.Duration) Option {
	if p99 < 0 || p999 < 0 {
		panic(fmt.Sprintf("schedcheck: WithLatencyTail(%v, %v): thresholds must not be negative", p99, p999))
	}
	return func(c *config) { c.p99, c.p999 = p99, p999 }
}

// WithGoroutineGrowth sets how many goroutines the count must grow by over
// the window, never falling between samples, for unbounded-goroutines
// (which also needs the runnable count and the latency tail to grow, see
// the package documentation); the default is 1000. It panics if n < 1.
func WithGoroutineGrowth(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("schedcheck: WithGoroutineGrowth(%d): growth must be at least 1", n))
	}
	return func(c *config) { c.growth = int64(n) }
}

// WithThreadSlack sets how many threads beyond GOMAXPROCS and the
// goroutines in system calls or cgo calls a program may hold before
// a Monitor counts the goroutines locked to threads, and before
// pinned-threads can be reported; the default is 4, the few threads every
// program has beyond its Ps (sysmon's, a spare or two). Threads left idle by
// earlier system calls also count, which costs a count of locked goroutines
// now and then (see Start) but no finding. It panics if n < 0.
func WithThreadSlack(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("schedcheck: WithThreadSlack(%d): slack must not be negative", n))
	}
	return func(c *config) { c.slack = int64(n) }
}

// WithLockedGoroutines sets how many goroutines locked to threads make
// pinned-threads; the default is half of GOMAXPROCS, at least 3, so that a
// program with a GUI or cgo thread or two is not reported. It panics if
// n < 1.
func WithLockedGoroutines(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("schedcheck: WithLockedGoroutines(%d): the count must be at least 1", n))
	}
	return func(c *config) { c.minLocked = n }
}

// WithCgoInFlight sets how many goroutines in cgo calls or system calls,
// in every sample of the window, make cgo-threads; the default is 64. It
// panics if n < 1.
func WithCgoInFlight(n int) Option {
	if n < 1 {
		panic(fmt.Sprintf("schedcheck: WithCgoInFlight(%d): the count must be at least 1", n))
	}
	return func(c *config) { c.cgoInFlight = int64(n) }
}

// WithOnFinding makes a Monitor call f with each finding the first time
// its name is reported, from the Monitor's goroutine, while sampling
// waits: f should return quickly, and must not call the Monitor's Stop
// (Stop waits for that goroutine, so it would never return). A panic in f
// is not recovered: it ends the program, as in any goroutine. Diagnose
// ignores it.
func WithOnFinding(f func(Finding)) Option {
	return func(c *config) { c.onFinding = f }
}

// withFS makes a Monitor read /proc and the cgroup files from fsys
// instead of the root directory; tests give it a fake tree.
func withFS(fsys fs.FS) Option {
	return func(c *config) { c.fsys = fsys }
}

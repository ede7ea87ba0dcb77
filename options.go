package steal

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Option configures a Pool in New.
type Option func(*config)

type config struct {
	workers      int
	maxQueued    int
	panicHandler func(*PanicError)
	panicLimit   *int // panics kept for Close; nil: defaultPanicLimit
	traceEvery   time.Duration
	traceOut     io.Writer
	stallAfter   time.Duration
	stallReport  func(Stall)
	timeline     int // events to keep per worker; 0: no timeline
	// profileLabels: WithProfileLabels. waitEvery: WithQueueWaitSampling,
	// if waitEverySet.
	profileLabels bool
	waitEvery     int
	waitEverySet  bool
}

// MaxWorkers is the most workers a pool may have. A worker that runs out of
// work looks at every other worker before it parks, so starting and idling
// cost grow with the square of the count: 4096 workers take about 2 s to
// start on two cores. Workers beyond the processors add no parallelism; for
// tasks that block, Worker.Block lends a spare instead.
const MaxWorkers = 4096

// WithWorkers sets the number of workers; n < 1 means 1. The default is
// runtime.GOMAXPROCS(0) when the pool starts, at most MaxWorkers. It panics
// if n is over MaxWorkers.
func WithWorkers(n int) Option {
	if n > MaxWorkers {
		panic("steal: WithWorkers(" + strconv.Itoa(n) + "): a pool has at most MaxWorkers (" +
			strconv.Itoa(MaxWorkers) + ") workers")
	}
	return func(c *config) { c.workers = max(n, 1) }
}

// WithMaxQueued caps the tasks submitted from outside the pool that no
// worker has picked up yet. At the cap, Submit blocks and TrySubmit returns
// ErrBacklogFull. n <= 0 means no cap (the default). Spawns from inside tasks
// are not counted and never block.
//
// A worker picks submitted tasks up in batches (at most 128, and about the
// queue's length divided by the number of workers), runs the first and
// keeps the rest in its own queue, where other workers may steal them; a
// batch leaves the backlog as it is picked up. So at most n tasks wait in
// the pool's queue, and up to about 128 more per worker wait, picked up,
// in the workers' own queues.
func WithMaxQueued(n int) Option {
	return func(c *config) { c.maxQueued = max(n, 0) }
}

// WithPanicHandler sends every panic recovered from a plain task (Submit,
// TrySubmit, Go, Worker.Spawn) to h, on the worker that recovered it,
// instead of keeping it for Close; Close then returns no panics. h must not
// panic and should return quickly: the worker runs nothing else meanwhile.
// Pool.SetPanicHandler replaces h at run time. A panic in a task that
// someone waits for (Run, Join, For, Group, a Future) goes to that waiter
// instead, as their docs say.
func WithPanicHandler(h func(*PanicError)) Option {
	return func(c *config) { c.panicHandler = h }
}

// WithPanicLimit sets how many panics, with no handler set, the pool keeps
// for Close and Shutdown to return: the first n, as *PanicError values.
// Later panics are only counted, and Close adds a *DroppedPanicsError with
// their number, so the memory panics hold stays bounded however many tasks
// panic. n <= 0 keeps none and only counts. The default is 64. Stats reports
// how many were kept and dropped.
func WithPanicLimit(n int) Option {
	n = max(n, 0)
	return func(c *config) { c.panicLimit = &n }
}

// WithSchedTrace writes one schedtrace line (see Pool.SchedTrace) to out
// every interval until the pool closes. An interval of zero or less means
// no trace, and a nil out means os.Stderr. The environment variable
// STEALDEBUG=schedtrace=N does the same every N milliseconds on stderr.
func WithSchedTrace(interval time.Duration, out io.Writer) Option {
	return func(c *config) { c.traceEvery, c.traceOut = interval, out }
}

// fromEnv applies STEALDEBUG, which wins over options only where an option
// left the setting unset.
func (c *config) fromEnv() {
	for _, kv := range strings.Split(os.Getenv("STEALDEBUG"), ",") {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name != "schedtrace" || c.traceEvery > 0 {
			continue
		}
		if ms, err := strconv.Atoi(val); err == nil && ms > 0 {
			c.traceEvery, c.traceOut = time.Duration(ms)*time.Millisecond, os.Stderr
		}
	}
	if c.traceOut == nil {
		c.traceOut = os.Stderr
	}
}

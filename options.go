// Every option New takes.

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
	traceSet     bool // WithSchedTrace was given, zero interval included
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
// A worker picks submitted tasks up in batches (at most 128, about the
// queue's length divided by the number of workers W, and with a cap at
// most max(1, n/W)), runs the first and keeps the rest in its own queue,
// where other workers may steal them; a batch leaves the backlog as it is
// picked up, and a worker picks up another only once its own queue is
// empty. So at most n tasks wait in the pool's queue, and Stats.Backlog
// (submitted, neither started nor skipped) stays within n plus
// max(1, n/W)-1 for each worker and each spare running for Block or a
// lent task (see the package doc's "Waiting inside the pool"),
// except for tasks that this pool's own tasks queued past the cap (Submit
// from a task never waits: see Submit) and for tasks that a ring full of
// spawned tasks moved back to the inject queue, which are not counted
// again.
func WithMaxQueued(n int) Option {
	return func(c *config) { c.maxQueued = max(n, 0) }
}

// WithPanicHandler sends every panic recovered from a plain task (Submit,
// TrySubmit, Go, Worker.Spawn) to h, on the worker that recovered it,
// instead of keeping it for Close; Close then returns no panics. h must not
// panic and should return quickly: the worker runs nothing else meanwhile.
// Pool.SetPanicHandler replaces h at run time. A panic in a task that
// someone waits for (Run, Join, For, Group) goes to that waiter instead,
// as their docs say. A future's (Spawn, PoolSpawn, TryPoolSpawn) goes to
// h when it happens, since nobody can tell then whether a waiter will
// come, and to its waiters as well.
func WithPanicHandler(h func(*PanicError)) Option {
	return func(c *config) { c.panicHandler = h }
}

// WithPanicLimit sets how many panics, with no handler set, the pool keeps
// for Close and Shutdown to return: the first n, as *PanicError values.
// Later panics are only counted, and Close adds a *DroppedPanicsError with
// their number, so the memory panics hold stays bounded however many tasks
// panic. The panics of futures nobody has waited for yet are held within
// the same limit, apart, until a waiter takes one or Close returns them.
// n <= 0 keeps none and only counts. The default is 64. Stats reports
// how many were kept and dropped.
func WithPanicLimit(n int) Option {
	n = max(n, 0)
	return func(c *config) { c.panicLimit = &n }
}

// WithSchedTrace writes one schedtrace line (see Pool.SchedTrace) to out
// every interval until the pool closes. An interval of zero or less means
// no trace, and a nil out means os.Stderr. The environment variable
// STEALDEBUG=schedtrace=N does the same every N milliseconds on stderr,
// for a pool made without WithSchedTrace.
//
// Lines are written from a goroutine of their own, one at a time. The
// writer may call Close or Shutdown. Once Close returns no line starts,
// and a line being written has ended, so the program may write to out
// after Close; but Close waits for that line at most a second: a line
// that a writer is blocked on (a stalled connection) may be written after
// Close returns, or never, and its goroutine ends when the writer returns.
func WithSchedTrace(interval time.Duration, out io.Writer) Option {
	return func(c *config) { c.traceEvery, c.traceOut, c.traceSet = interval, out, true }
}

// fromEnv applies STEALDEBUG, which wins over options only where an option
// left the setting unset: WithSchedTrace(0, out) sets it, to no trace.
func (c *config) fromEnv() {
	for _, kv := range strings.Split(os.Getenv("STEALDEBUG"), ",") {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name != "schedtrace" || c.traceSet {
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

// WithQueueWaitSampling sets how many submitted tasks (those counted in
// Stats.Submitted) there are to one whose queue wait
// is timed for Stats.QueueWait, and whose run is timed for Stats.TaskTime:
// about one in n, chosen by a hash of the
// task's place in the inject queue (Fibonacci hashing), which spreads the
// timed tasks evenly over any pattern of submissions and needs no counter
// or random draw of its own. 1 times every task; n <= 0 times none. The
// default is 64.
//
// Cost: a multiplication per submitted task; a timed task adds two clock
// readings and one small allocation, the first reading and
// the allocation before the task takes its place in the inject queue, and
// one more clock reading when it returns. See docs/metrics.md for
// measurements.
func WithQueueWaitSampling(n int) Option {
	return func(c *config) { c.waitEvery = max(n, 0); c.waitEverySet = true }
}

// WithProfileLabels makes every task run with the runtime/pprof labels of
// its context, as a goroutine runs with those of the goroutine that started
// it: labels set with pprof.WithLabels on a context given to Submit or
// Pool.Group, plus steal.task=<name> for a task named with Named. CPU and
// goroutine profiles then attribute a task's samples to its labels instead
// of to the bare worker goroutine (go tool pprof -tagfocus steal.task=resize).
// When a task ends, its worker goes back to the labels it had before: none
// between tasks, the waiting task's while it helps in Join or Wait.
//
// Cost when on: one context lookup and two label switches per task, no
// allocation. Off (the default), nothing.
func WithProfileLabels() Option {
	return func(c *config) { c.profileLabels = true }
}

// WithStallDetector reports, through report, every worker stuck in one task
// for longer than threshold while tasks wait to run anywhere in the pool:
// in the inject queue, or in any worker's or spare's runnext, ring or
// fork-join deque.
// Stuck means the worker started no task and took no step in that time,
// where a step is a call of Join, Join2, Fork2 or Worker.Spawn, or one sub-range
// of For or ForRange. A stall usually means a task that blocks (I/O, a
// lock, a channel, time.Sleep) without Worker.Block, or that loops without
// any of those calls.
//
// The detector stays quiet for a long task when nothing waits, for
// fork-join code that keeps splitting or running nested tasks, however
// long its root task runs, for a task waiting in Join, Group.Wait or
// Future.Wait (it runs other tasks, sleeps on the idle list, or waits
// while a spare runs a submitted task it came upon), for a parked worker,
// and for a task blocked in Worker.Block while its spare works or parks.
// A spare is watched like a worker: one stuck in a task while tasks wait
// is reported with its own ID (see Stall.Worker), since the worker it
// stands in for is then stuck as well.
//
// report is called once per stall, from the detector's goroutine, and
// again for the same worker only after it has made progress; the detector
// waits for report to return, and report must not panic. report may call
// Close or Shutdown: they wait for the workers as usual, but not for report
// to return. nil means a log/slog warning. A threshold of zero or less means no detector.
//
// The detector is the pool's sysmon: one goroutine that wakes every
// threshold/2, compares each worker's counts of started tasks and parks
// with its previous look, and sets a flag on each worker that the worker
// clears at its next step. A stall is therefore reported between threshold
// and about twice threshold after the worker's last step. Tasks pay no
// timer and no clock read: a step costs one load of the worker's own flag,
// and a store once per look. Without this option there is no detector
// goroutine and nothing sets the flag. While enabled it wakes 2/threshold
// times a second even when the pool is idle.
//
// A worker whose thread the operating system leaves unrun for threshold
// (more busy threads than cores) takes no step either, and is reported
// like a stuck one: choose a threshold well above the scheduling delays the
// machine is expected to have.
func WithStallDetector(threshold time.Duration, report func(Stall)) Option {
	return func(c *config) {
		c.stallAfter = threshold
		c.stallReport = report
	}
}

// WithTimeline records, per worker of the pool, the start and end of every
// task it runs from the scheduler loop or while helping, every steal
// (victim, thief, how many tasks) and every park and wake-up, keeping the
// first perWorker events of
// each worker (later ones are counted as dropped). After Close, WriteTrace
// writes them as Chrome trace events that Perfetto (ui.perfetto.dev) and
// chrome://tracing open.
//
// Cost when on: two clock reads and two appends per task, and 24 bytes per
// event; a context lookup per task for its name (see Named), and a map
// lookup for a named one (BenchmarkObserve measures it).
// Joins that run inline, without a thief, are not recorded, and neither
// are the tasks of the spare workers that stand in for a worker in
// Worker.Block (they come and go; Stats counts their tasks). Off, it costs
// one check per task, shared with the execution tracer's.
func WithTimeline(perWorker int) Option {
	return func(c *config) { c.timeline = max(perWorker, 0) }
}

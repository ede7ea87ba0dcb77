package steal

import (
	"context"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
)

// Region types and log category under which the execution tracer shows
// tasks (go tool trace, "User-defined regions" and the goroutine view).
const (
	traceTaskRegion  = "steal.task"  // a task without a name
	traceGroupTask   = "steal.Group" // a group round without a name
	traceWorkerLog   = "steal.worker"
	traceWorkerEvery = 256 // traced tasks between two logs of the worker's id
)

// workerWatch is a worker's state for watched tasks; owner-only.
type workerWatch struct {
	// on: the worker has a timeline or sets profile labels, so every task
	// is watched, not only while the execution tracer runs.
	on bool
	// labels is the context whose profile labels the worker's goroutine
	// carries now; nil for none.
	labels context.Context
	// traceTasks and traceParks decide when to log the worker's id to the
	// execution tracer: every traceWorkerEvery traced tasks, and on the
	// first traced task after a park, so that any trace of some length,
	// including a flight recorder's window, says which goroutine is which
	// worker.
	traceTasks uint32
	traceParks uint64
	idText     string
}

// dropInheritedLabels clears, under WithProfileLabels, the profile labels
// the worker's goroutine inherited from the goroutine that started it (the
// caller of New, or a task that called Block), so that between tasks the
// worker carries none, as documented.
func (c *core) dropInheritedLabels() {
	if c.pool.profileLabels {
		pprof.SetGoroutineLabels(context.Background())
	}
}

// watch is what beginWatch did for one task, for endWatch to undo.
type watch struct {
	region   *trace.Region
	labels   context.Context // the labels to go back to
	relabel  bool
	timeline bool
}

// beginWatch reports the start of task t to the timeline, the execution
// tracer and the profiler, as far as each is on. The caller has checked
// that one of them may be: c.watch.on or trace.IsEnabled().
func (c *core) beginWatch(t *task) watch {
	var w watch
	tracing := trace.IsEnabled()
	name := ""
	if tracing || c.timeline != nil {
		name = TaskName(t.ctx)
	}
	if c.timeline != nil {
		c.timeline.add(evTaskStart, c.timeline.nameID(name), 0)
		w.timeline = true
	}
	if tracing {
		c.traceWorker()
		if name == "" {
			name = traceTaskRegion
		}
		w.region = trace.StartRegion(t.ctx, name)
	}
	if c.pool.profileLabels {
		w.labels, w.relabel = c.watch.labels, true
		c.watch.labels = t.ctx
		pprof.SetGoroutineLabels(t.ctx)
	}
	return w
}

// endWatch reports the end of the task beginWatch reported, in reverse
// order, on the same goroutine (a trace region must end where it began).
func (c *core) endWatch(w watch) {
	if w.relabel {
		c.watch.labels = w.labels
		if w.labels == nil {
			pprof.SetGoroutineLabels(context.Background())
		} else {
			pprof.SetGoroutineLabels(w.labels)
		}
	}
	if w.region != nil {
		w.region.End()
	}
	if w.timeline {
		c.timeline.add(evTaskEnd, 0, 0)
	}
}

// traceWorker logs the worker's id to the execution tracer when due, so
// that a trace maps the goroutine running the worker to its id.
func (c *core) traceWorker() {
	ww := &c.watch
	parks := c.stats.parks.local
	if ww.traceTasks%traceWorkerEvery == 0 || ww.traceParks != parks {
		if ww.idText == "" {
			ww.idText = strconv.Itoa(c.id)
		}
		trace.Log(context.Background(), traceWorkerLog, ww.idText)
		ww.traceParks = parks
	}
	ww.traceTasks++
}

// traceGroup starts an execution-tracer task for a group round if the
// tracer is on, so that go tool trace shows the round as one task with its
// children's regions on whichever workers ran them. It returns the context
// the round derives from and the trace task to end with the round (nil
// when the tracer is off).
func traceGroup(parent context.Context) (context.Context, *trace.Task) {
	if !trace.IsEnabled() {
		return parent, nil
	}
	name := TaskName(parent)
	if name == "" {
		name = traceGroupTask
	}
	return trace.NewTask(parent, name)
}

package steal

import (
	"context"
	"runtime/pprof"
)

// nameLabel is the profiler label that carries a task's name: Named stores
// the name as this runtime/pprof label, so that one value serves the
// timeline, the execution tracer and, with WithProfileLabels, profiles.
const nameLabel = "steal.task"

// Named returns a copy of ctx that names the tasks created with it. The
// name is stored as the runtime/pprof label "steal.task", so TaskName and
// pprof.Label read it back.
//
// A task carries the name in its context: a task submitted with
// Submit(Named(ctx, "resize"), fn), or a child of Pool.Group(Named(ctx,
// "crawl")), is named; so is every task a named task creates (Spawn, Join,
// Fork2, For, futures, NewGroup children), since they inherit its context.
// An empty name makes the tasks created with the result unnamed again. A
// nil ctx means context.Background().
//
// The name shows where a pool reports its tasks: as the slice's name in
// the timeline of WithTimeline (unnamed tasks are "task"), as the region
// type of each task in the Go execution tracer (go tool trace; unnamed
// tasks are "steal.task"), and, with WithProfileLabels, as the label
// steal.task of the task's samples in CPU and goroutine profiles.
//
// Cost: Named allocates the labelled context, as pprof.WithLabels does.
// Tasks pay nothing for their names unless the timeline, the execution
// tracer or WithProfileLabels is on; then one context lookup per task.
func Named(ctx context.Context, name string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return pprof.WithLabels(ctx, pprof.Labels(nameLabel, name))
}

// TaskName returns the task name that Named put in ctx, or "" if there is
// none. Inside a task, TaskName(w.Context()) is the task's own name.
func TaskName(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	name, _ := pprof.Label(ctx, nameLabel)
	return name
}

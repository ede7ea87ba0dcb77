package steal

import (
	"context"
	"sync"
)

// ownTasks holds the cancellations of the tasks submitted with a context
// of their own (and of the tasks they spawn) that are running on one
// worker, so that the pool's context ending cancels theirs.
//
// Each such task used to register with the pool's context itself
// (context.AfterFunc), whose one lock every worker then took twice per
// task. Here a worker registers once, and its tasks push and
// pop under a lock that only the owner and, once, the pool's cancellation
// take. Tasks start and end on their worker in stack order (a waiting task
// runs others above its own frames), so the list is a stack.
type ownTasks struct {
	mu      sync.Mutex
	cancels []context.CancelCauseFunc
	stop    func() bool // the worker's AfterFunc on the pool's context
	cause   error       // set once the pool's context has ended
}

// push registers cancel for a task on the owner's worker, which takes
// its place above every task registered there that has not ended; if the
// pool's context has already ended, it cancels it at once (the
// AfterFunc's cancelAll may not have run yet).
func (o *ownTasks) push(pool context.Context, cancel context.CancelCauseFunc) {
	o.mu.Lock()
	if o.stop == nil {
		o.stop = context.AfterFunc(pool, func() { o.cancelAll(context.Cause(pool)) })
	}
	cause := o.cause
	o.cancels = append(o.cancels, cancel)
	o.mu.Unlock()
	if cause == nil && pool.Err() != nil {
		cause = context.Cause(pool)
	}
	if cause != nil {
		cancel(cause)
	}
}

// pop forgets the cancellation of the task ending on the owner's worker,
// the last one pushed.
func (o *ownTasks) pop() {
	o.mu.Lock()
	n := len(o.cancels) - 1
	o.cancels[n] = nil
	o.cancels = o.cancels[:n]
	o.mu.Unlock()
}

// cancelAll cancels every registered task with cause, and those pushed
// later on arrival.
func (o *ownTasks) cancelAll(cause error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cause = cause
	for _, cancel := range o.cancels {
		cancel(cause)
	}
}

// leave unregisters the worker from the pool's context as it exits.
func (o *ownTasks) leave() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stop != nil {
		o.stop()
		o.stop = nil
	}
}

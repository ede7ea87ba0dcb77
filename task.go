package steal

// task is one unit of work. A plain task (Submit, Spawn) is allocated once
// and linked through next while it waits in the inject queue. A fork-join
// task (Join's second half, a Group child, a Future) also has a latch that
// counts it done, so that whoever waits for it can tell.
type task struct {
	fn       func(*Worker)
	next     *task  // inject queue link, owned by whoever holds the queue lock
	done     *latch // fork-join: counted down when fn has run; nil for plain tasks
	group    *Group // group child: fn's error and panic go to the group
	efn      func(*Worker) error
	perr     *PanicError // fork-join: fn's panic, re-raised by the waiter
	external bool        // submitted from outside: counts against WithMaxQueued
}

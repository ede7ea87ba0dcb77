// Package lockthread defines an Analyzer that reports goroutines that
// keep their OS thread locked (runtime.LockOSThread) across a loop that
// waits for work on channels.
//
// # Pitfall: LockOSThread starvation
//
//	func (w *Worker) Run() {
//		runtime.LockOSThread()
//		defer runtime.UnlockOSThread()
//		for req := range w.requests {
//			process(req)
//		}
//	}
//	...
//	go workers[i].Run()
//
// A locked goroutine can run only on its own thread (M). Whenever the
// worker waits for its channel, that thread sleeps with it; when the
// worker becomes runnable again, whichever P finds it must hand itself
// over to the locked thread and wake it (startlockedm in the runtime's
// proc.go), two OS thread switches instead of a goroutine switch. The
// goroutine's work cannot simply be run where stealing put it, and a
// pool of such workers, each with its own channel, balances nothing:
// an idle worker's thread cannot help an overloaded one.
//
// Instead, drop the lock: let unlocked workers share one channel and
// the scheduler balance them. If a call really needs a thread (cgo
// code with thread-local state, OS thread attributes), lock around
// that call only, or unlock before the loop.
//
// # What is reported
//
// A call of runtime.LockOSThread in a function that, later in its body
// and with no UnlockOSThread call (other than a deferred one) in
// between, has a work loop: a range over a channel, or a for loop whose
// body receives from a channel or selects. The function must run as a
// goroutine: a function literal or function started by a go statement
// of the package (or passed to sync.WaitGroup.Go or errgroup's
// Group.Go), directly or through a variable that a function literal is
// assigned to (worker := func() {...}; go worker()); a function called
// as a statement of such a literal's body (go func() { defer wg.Done();
// worker(ch) }()), which is the goroutine's body; or a method named
// like a run loop (Run, Loop, RunLoop, Serve, Work, Worker, Poll,
// Consume, Dispatch, any name ending in Loop, in either case), since
// such methods are usually started from another package.
//
// # What is deliberately not reported
//
//   - LockOSThread in main or init: locking the main thread is how
//     programs serve GUI and OS APIs that must run there.
//   - Lock and unlock around a short section before the loop, or
//     inside the loop body.
//   - A locked goroutine with no work loop.
//   - A thread-bound server: the function calls package syscall,
//     golang.org/x/sys/unix or windows, or cgo between the lock and
//     the loop (it sets up thread state, such as a network namespace
//     or a priority, that the loop's work needs), directly or through
//     a function outside the standard library that does (a wrapper
//     such as a namespace library's Set, in this package or another;
//     a setsUpThread fact carries this across packages), or in its
//     loop (an I/O thread that waits in a system call on a completion
//     port, a render loop that calls a thread-bound C library), or its loop receives
//     functions to call (for f := range calls { f() }, or a select
//     whose other cases only end the loop, such as case <-done:
//     return), which is how a program runs closures on one dedicated
//     thread.
//   - Functions that are neither started with go in the package nor
//     named like a run loop.
//   - _test.go files, unless -lockthread.tests is set: tests lock threads on purpose to exercise the scheduler.
package lockthread

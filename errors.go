// Every error the package returns: the sentinels to compare with errors.Is
// and the types to unpack with errors.As.

package steal

import (
	"errors"
	"fmt"
	"io"
)

// ErrDefaultPool is returned by Close and Shutdown on the pool Default
// returns, which the whole program shares and nobody may close.
var ErrDefaultPool = errors.New("steal: the Default pool is shared by the whole program and is never closed")

// ErrClosed is returned when a task is submitted to a pool that is closing or
// closed.
var ErrClosed = errors.New("steal: pool is closed")

// ErrBacklogFull is returned by TrySubmit when WithMaxQueued tasks are already
// waiting for a worker to pick them up.
var ErrBacklogFull = errors.New("steal: backlog full")

// ErrInsideTask is returned by Close and Shutdown when they are called from
// a task of the same pool: they wait for every task to finish, the calling
// one included, so they would wait forever. The pool is left running.
var ErrInsideTask = errors.New("steal: Close or Shutdown called from a task of the same pool; it would wait for itself")

// ErrGoexit is what a task that called runtime.Goexit (as t.FailNow and
// t.SkipNow do) is reported with: the Value of its *PanicError. Goexit ends
// the goroutine running the task, and every task that goroutine was running
// beneath it (a task that waits in Join or Group.Wait runs other tasks on
// its own goroutine); each of them is reported as failed this way. The pool
// replaces the goroutine, so it keeps all its workers.
var ErrGoexit = errors.New("steal: task called runtime.Goexit")

// ErrSkipped is matched (errors.Is) by every *SkippedError.
var ErrSkipped = errors.New("steal: task skipped")

// SkippedError reports tasks that were never run because their context was
// done before they started: Group.Wait, Future.Wait and Pool.Run return it.
// It wraps ErrSkipped and the context's cause, so errors.Is(err,
// context.Canceled) or errors.Is(err, context.DeadlineExceeded) tell why.
type SkippedError struct {
	Count int   // tasks not run
	Cause error // context.Cause of the context that ended
}

func (e *SkippedError) Error() string {
	noun := "tasks"
	if e.Count == 1 {
		noun = "task"
	}
	return fmt.Sprintf("steal: %d %s not run: %v", e.Count, noun, e.Cause)
}

// Unwrap returns ErrSkipped and the cause.
func (e *SkippedError) Unwrap() []error { return []error{ErrSkipped, e.Cause} }

// PanicError is a panic recovered from a task: the value passed to panic
// and the stack of the goroutine that panicked. A task that called
// runtime.Goexit is reported as a PanicError too, with Value ErrGoexit and
// the stack where it called it.
type PanicError struct {
	Value  any
	Stack  []byte // as debug.Stack prints it: Error leaves it out, %+v prints it
	Worker int    // the worker that ran the task
}

// Error returns one line, "steal: task panicked on worker N: value" (or
// "steal: task called runtime.Goexit on worker N"), without
// the stack: a program that logs many panics should not log many stacks.
// The stack is in the Stack field, and %+v prints it after that line.
func (e *PanicError) Error() string {
	if e.Value == ErrGoexit {
		return fmt.Sprintf("steal: task called runtime.Goexit on worker %d", e.Worker)
	}
	return fmt.Sprintf("steal: task panicked on worker %d: %v", e.Worker, e.Value)
}

// Format prints Error(), a blank line and the stack for %+v; Error() quoted
// for %q; Error() for any other verb. An error that wraps a PanicError, such
// as the one errors.Join builds, prints only Error() lines even with %+v.
func (e *PanicError) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('+'):
		io.WriteString(f, e.Error()+"\n\n")
		f.Write(e.Stack)
	case verb == 'q':
		fmt.Fprintf(f, "%q", e.Error())
	default:
		io.WriteString(f, e.Error())
	}
}

// Unwrap returns the panic value if it is an error, so errors.Is and
// errors.As see through a PanicError.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// DroppedPanicsError is joined to the panics that Close and Shutdown return
// when more tasks panicked than the pool keeps (see WithPanicLimit): Count
// more panics were recovered and counted, but not kept.
type DroppedPanicsError struct {
	Count uint64 // panics recovered but not kept
	Limit int    // panics the pool keeps
}

func (e *DroppedPanicsError) Error() string {
	return fmt.Sprintf("steal: %d more task panics were not kept (limit %d)", e.Count, e.Limit)
}

// MapError is how MapErr, MapSeqErr and their Pool variants report the
// first call of f that failed.
type MapError struct {
	Index   int   // the element's index in the slice, or position in the sequence
	Err     error // what f returned
	Skipped int   // calls not made because of it, or because the context ended
}

func (e *MapError) Error() string {
	if e.Skipped == 0 {
		return fmt.Sprintf("steal: element %d: %v", e.Index, e.Err)
	}
	noun := "calls"
	if e.Skipped == 1 {
		noun = "call"
	}
	return fmt.Sprintf("steal: element %d: %v (%d %s not made)", e.Index, e.Err, e.Skipped, noun)
}

// Unwrap returns Err, and ErrSkipped if any call was not made.
func (e *MapError) Unwrap() []error {
	if e.Skipped > 0 {
		return []error{e.Err, ErrSkipped}
	}
	return []error{e.Err}
}

// ErrNotClosed is returned by WriteTrace on a pool that is still running.
var ErrNotClosed = errors.New("steal: pool is still running")

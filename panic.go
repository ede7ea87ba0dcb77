package steal

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// PanicError is a panic recovered from a task: the value passed to panic
// and the stack of the goroutine that panicked.
type PanicError struct {
	Value  any
	Stack  []byte
	Worker int // the worker that ran the task
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("steal: task panicked on worker %d: %v\n\n%s", e.Worker, e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error, so errors.Is and
// errors.As see through a PanicError.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// panicSink collects recovered panics for Close, or hands them to a handler.
type panicSink struct {
	handler func(*PanicError)
	mu      sync.Mutex
	errs    []error
}

func (s *panicSink) add(e *PanicError) {
	if s.handler != nil {
		s.handler(e)
		return
	}
	s.mu.Lock()
	s.errs = append(s.errs, e)
	s.mu.Unlock()
}

// take returns the collected panics joined, and forgets them.
func (s *panicSink) take() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := errors.Join(s.errs...)
	s.errs = nil
	return err
}

// newPanicError captures a recovered value with the current stack. Called
// from a deferred function, the stack still shows where the panic started.
func newPanicError(r any, worker int) *PanicError {
	if pe, ok := r.(*PanicError); ok {
		return pe // re-raised by Join or Wait further down: keep the origin
	}
	return &PanicError{Value: r, Stack: debug.Stack(), Worker: worker}
}

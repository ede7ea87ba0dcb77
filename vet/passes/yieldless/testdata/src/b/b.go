// Package b is imported by package a to check that the mayBlock fact
// crosses package boundaries.
package b

// Queue is a mutex-free queue owned by one worker.
type Queue struct {
	tasks []func()
	ready chan func()
}

// Pop returns a task if there is one; it never blocks.
func (q *Queue) Pop() (func(), bool) {
	if len(q.tasks) == 0 {
		return nil, false
	}
	t := q.tasks[len(q.tasks)-1]
	q.tasks = q.tasks[:len(q.tasks)-1]
	return t, true
}

// Wait parks until a task is handed over.
func (q *Queue) Wait() func() { // want Wait:"mayBlock"
	return <-q.ready
}

// WaitVia blocks through a callee only.
func (q *Queue) WaitVia() func() { // want WaitVia:"mayBlock"
	return q.Wait()
}

// Park parks the caller until a task is ready, through an unexported
// callee.
func (q *Queue) Park() { // want Park:"mayBlock"
	q.park()
}

func (q *Queue) park() { // want park:"mayBlock"
	q.ready <- nil
}

// Len never blocks.
func (q *Queue) Len() int { return len(q.tasks) }

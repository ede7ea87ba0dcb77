package steal

import (
	"sync"
	"sync/atomic"
)

// injectQueue is the pool's global run queue: unbounded, many producers,
// guarded by a mutex, as the runtime's sched.runq. Workers read its length
// without the lock to skip it cheaply when it is empty.
type injectQueue struct {
	mu         sync.Mutex
	head, tail *task
	n          atomic.Int64 // written under mu, read without it
}

// push appends one task. Caller holds mu.
func (q *injectQueue) push(t *task) {
	t.next = nil
	if q.tail == nil {
		q.head = t
	} else {
		q.tail.next = t
	}
	q.tail = t
	q.n.Add(1)
}

// pushBatch appends tasks in order (a ring's overflow). It takes mu.
func (q *injectQueue) pushBatch(batch []*task) {
	q.mu.Lock()
	for _, t := range batch {
		q.push(t)
	}
	q.mu.Unlock()
}

// pop removes the oldest task, or returns nil. Caller holds mu.
func (q *injectQueue) pop() *task {
	t := q.head
	if t == nil {
		return nil
	}
	q.head = t.next
	if q.head == nil {
		q.tail = nil
	}
	t.next = nil
	q.n.Add(-1)
	return t
}

// len is a lock-free snapshot of the queue's length.
func (q *injectQueue) len() int { return int(q.n.Load()) }

// getOne takes one task, or nil.
func (q *injectQueue) getOne() *task {
	if q.len() == 0 {
		return nil
	}
	q.mu.Lock()
	t := q.pop()
	q.mu.Unlock()
	return t
}

// getBatch takes up to min(128, len/workers + 1) tasks: it returns the first
// to run now and puts the rest into w's ring (which is empty: the caller
// looked) with one publishing store, as the runtime's globrunqget does.
func (q *injectQueue) getBatch(w *worker, workers int) *task {
	if q.len() == 0 {
		return nil
	}
	var batch [128]*task
	q.mu.Lock()
	n := min(q.len()/workers+1, len(batch))
	first := q.pop()
	k := 0
	for ; k < n-1; k++ {
		if batch[k] = q.pop(); batch[k] == nil {
			break
		}
	}
	q.mu.Unlock()
	if put := w.ring.PutBatch(batch[:k]); put < k { // cannot happen with an empty ring; stay safe
		q.pushBatch(batch[put:k])
	}
	return first
}

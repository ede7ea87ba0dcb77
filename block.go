package steal

// maxSpares caps the spare workers running for Worker.Block at once, across
// the pool. Past the cap, Block runs fn without a spare: the worker is then
// simply blocked, as it would be without Block.
const maxSpares = 256

// Block runs fn, which may block (I/O, a lock, cgo), without taking a worker
// away from the pool: while fn runs, a spare worker, with queues of its own,
// steals and runs tasks in this worker's place, so the pool keeps Workers()
// workers running. This is the user-space twin of the runtime handing off a
// P when a goroutine enters a system call.
//
// Block returns as soon as fn returns: it never waits for the spare. The
// spare finishes the task it is running and whatever that task queued on
// it, then retires, so for a moment the pool may run one task more than it
// has workers. Block thus adds no wait that the program without it would
// not have.
//
// It must be called by the task that received w. fn may use w (its tasks
// stay on this worker, stealable by the spare and everyone else). A Block
// inside fn (or inside any task this worker runs while fn waits in Join or
// Wait) starts no second spare: the one running already stands in for
// this worker. At most maxSpares (256) spares run at once, those running
// tasks that waiting tasks handed over included; beyond that fn runs with
// no spare. A panic or Goexit in fn goes on unchanged after the
// spare is released.
func (w *Worker) Block(fn func()) {
	if fn == nil {
		nilFunc("Worker.Block")
	}
	c := w.core()
	if c.blocking.Load() { // a spare already stands in for this worker
		fn()
		return
	}
	s := c.pool.spares.start(c.pool, nil)
	if s == nil {
		fn()
		return
	}
	c.blocking.Store(true)
	defer func() {
		c.blocking.Store(false)
		close(s.quit) // the spare retires once its own queues are empty
	}()
	fn()
}

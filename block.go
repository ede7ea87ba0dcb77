package steal

// maxSpares caps the spare goroutines running for Worker.Block at once,
// across the pool. Past the cap, Block runs fn without a spare: the worker
// is then simply blocked, as it would be without Block.
const maxSpares = 256

// Block runs fn, which may block (I/O, a lock, cgo), without taking a worker
// away from the pool: while fn runs, a spare goroutine takes over this
// worker's queues and runs its tasks, so the pool keeps Workers() workers
// running. When fn returns, Block takes the worker back; if the spare is in
// the middle of a task, Block waits for that task to finish. This is the
// user-space twin of the runtime handing off a P when a goroutine enters a
// system call.
//
// It must be called by the task that received w, and fn must not use w. At
// most maxSpares (256) spares run at once; beyond that fn runs on the
// blocked worker with no spare. If fn panics, the worker is taken back and
// the panic continues.
func (w *Worker) Block(fn func()) {
	p := w.pool
	if p.spares.Add(1) > maxSpares {
		p.spares.Add(-1)
		fn()
		return
	}
	p.blocked.Add(1)
	reclaim := make(chan struct{})
	stopped := make(chan struct{})
	// A task run by a spare may itself Block: keep the outer spare's
	// channel and give it back, or the outer spare never sees its reclaim.
	outer := w.reclaim
	w.reclaim = reclaim
	go w.runSpare(stopped)
	defer func() {
		close(reclaim)
		<-stopped
		w.reclaim = outer
		p.blocked.Add(-1)
		p.spares.Add(-1)
	}()
	fn()
}

// runSpare runs w's scheduling loop on a spare goroutine until w.reclaim is
// closed, checking it between tasks.
func (w *Worker) runSpare(stopped chan<- struct{}) {
	defer close(stopped)
	for {
		select {
		case <-w.reclaim:
			w.dropSpinning()
			return
		default:
		}
		t := w.findWork()
		if t == nil {
			return
		}
		w.execute(t)
	}
}

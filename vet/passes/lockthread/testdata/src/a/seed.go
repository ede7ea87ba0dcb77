package a

import "runtime"

type Request struct{}

func process(Request) {}

type Worker struct {
	id       int
	requests chan Request
}

// The LockOSThread starvation pool: each worker pins its thread and
// serves its own channel.
func (w *Worker) Run() {
	runtime.LockOSThread() // want `LockOSThread starvation: this goroutine stays locked to its OS thread across the work loop at line 19`
	defer runtime.UnlockOSThread()
	for req := range w.requests {
		process(req)
	}
}

func startPool() {
	procs := runtime.NumCPU()
	workers := make([]*Worker, procs)
	for i := range workers {
		workers[i] = &Worker{id: i, requests: make(chan Request)}
		go workers[i].Run()
	}
}

// The repair: unlocked workers share one channel.
func sharedPool(requests chan Request, procs int) {
	for i := 0; i < procs; i++ {
		go func() {
			for req := range requests {
				process(req)
			}
		}()
	}
}

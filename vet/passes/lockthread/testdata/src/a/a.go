package a

import (
	"runtime"
	"sync"
	"syscall"
)

// Started with go in this package, under any name.
func serve(ch chan Request) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	for {
		req, ok := <-ch
		if !ok {
			return
		}
		process(req)
	}
}

func startServe(ch chan Request) { go serve(ch) }

// A go func literal with a select loop.
func literal(ch chan Request, done chan struct{}) {
	go func() {
		runtime.LockOSThread() // want `LockOSThread starvation`
		for {
			select {
			case req := <-ch:
				process(req)
			case <-done:
				return
			}
		}
	}()
}

// Started through sync.WaitGroup.Go.
func waitGroup(ch chan Request) {
	var wg sync.WaitGroup
	wg.Go(func() {
		runtime.LockOSThread() // want `LockOSThread starvation`
		defer runtime.UnlockOSThread()
		for req := range ch {
			process(req)
		}
	})
	wg.Wait()
}

// A generic function started with explicit type arguments.
func genericServe[T any](ch chan T) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	for v := range ch {
		_ = v
	}
}

func startGeneric(ch chan int) { go genericServe[int](ch) }

type Poller struct{ events chan int }

// Not started in this package, but named like a run loop.
func (p *Poller) EventLoop() {
	runtime.LockOSThread() // want `LockOSThread starvation`
	for ev := range p.events {
		_ = ev
	}
}

// Negative look-alikes.

// Locked only around a short section before the loop.
func shortSection(ch chan Request) {
	runtime.LockOSThread()
	process(Request{})
	runtime.UnlockOSThread()
	for req := range ch {
		process(req)
	}
}

func startShort(ch chan Request) { go shortSection(ch) }

// Locked around each item, inside the loop.
func perItem(ch chan Request) {
	go func() {
		for req := range ch {
			runtime.LockOSThread()
			process(req)
			runtime.UnlockOSThread()
		}
	}()
}

// Locked, but no work loop.
func noLoop() {
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		process(Request{})
	}()
}

// Thread state set up before the loop: the lock is the point.
func threadState(ch chan Request) {
	go func() {
		runtime.LockOSThread()
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10); err != nil {
			return
		}
		for req := range ch {
			process(req)
		}
	}()
}

// A dedicated thread that runs the closures it is sent.
func dispatcher(calls chan func()) {
	go func() {
		runtime.LockOSThread()
		for f := range calls {
			f()
		}
	}()
}

// The same dispatcher with a shutdown channel: the select's only other
// case leaves the loop.
func dispatcherDone(calls chan func(), done chan struct{}) {
	go func() {
		runtime.LockOSThread()
		for {
			select {
			case f := <-calls:
				f()
			case <-done:
				return
			}
		}
	}()
}

// Neither started with go here nor named like a run loop.
func helper(ch chan Request) {
	runtime.LockOSThread()
	for req := range ch {
		process(req)
	}
}

// A run-loop name on a plain function, not a method.
func Run(ch chan Request) {
	runtime.LockOSThread()
	for req := range ch {
		process(req)
	}
}

// A loop that does not wait on a channel.
func (p *Poller) Loop(n int) {
	runtime.LockOSThread()
	for i := 0; i < n; i++ {
		process(Request{})
	}
}

// A function literal kept in a variable and started with go.
func closureVar(ch chan Request) {
	worker := func() {
		runtime.LockOSThread() // want `LockOSThread starvation`
		for req := range ch {
			process(req)
		}
	}
	go worker()
}

// The same, declared with var and started through sync.WaitGroup.Go.
func closureVarGo(ch chan Request) {
	var loop = func() {
		runtime.LockOSThread() // want `LockOSThread starvation`
		defer runtime.UnlockOSThread()
		for req := range ch {
			process(req)
		}
	}
	var wg sync.WaitGroup
	wg.Go(loop)
	wg.Wait()
}

// A function literal in a variable that is only called, not started.
func closureCalled(ch chan Request) {
	serveHere := func() {
		runtime.LockOSThread()
		for req := range ch {
			process(req)
		}
	}
	serveHere()
}

// A worker pool whose goroutines call the locked worker: the literal
// started with go runs pooledWorker as the goroutine's body.
func pooledWorker(id int, ch chan Request) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	defer runtime.UnlockOSThread()
	for req := range ch {
		process(req)
	}
}

func startPooled(ch chan Request) {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pooledWorker(i, ch)
		}()
	}
	wg.Wait()
}

// Called from a started literal only under a condition: not the
// goroutine's body, left alone.
func maybeServe(ch chan Request) {
	runtime.LockOSThread()
	for req := range ch {
		process(req)
	}
}

func startMaybe(ch chan Request, on bool) {
	go func() {
		if on {
			maybeServe(ch)
		}
	}()
}

// A channel typed by a type parameter is still a channel: ranging over
// it waits for work.
func genericChanServe[C ~chan E, E any](ch C) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	for req := range ch {
		_ = req
	}
}

func startGenericChan(ch chan int) { go genericChanServe(ch) }

// A dispatcher over a type-parameter channel of functions: not a work loop.
func genericDispatcher[C ~chan func()](calls C) {
	runtime.LockOSThread()
	for f := range calls {
		f()
	}
}

func startGenericDispatcher(calls chan func()) { go genericDispatcher(calls) }

package a

import (
	"b"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

type Task func()

type Worker struct {
	local  []Task
	others []*Worker
	mu     sync.Mutex
	wake   chan struct{}
	q      *b.Queue
	stop   int32
	tasks  chan Task
}

func (w *Worker) pop() (Task, bool) {
	if len(w.local) == 0 {
		return nil, false
	}
	t := w.local[len(w.local)-1]
	w.local = w.local[:len(w.local)-1]
	return t, true
}

func (w *Worker) steal() (Task, bool) {
	for _, v := range w.others {
		if len(v.local) > 0 {
			t := v.local[0]
			v.local = v.local[1:]
			return t, true
		}
	}
	return nil, false
}

// run is the worker loop of a home-made scheduler, as it is usually
// first written: when both queues are empty it goes round again at once.
func (w *Worker) run() { // want run:"mayBlock"
	for { // want `polling loop has an iteration that neither blocks nor yields`
		if t, ok := w.pop(); ok {
			t()
		} else if t, ok := w.steal(); ok {
			t()
		}
		// No yield, no Gosched.
	}
}

// runLocked pins the loop to its thread, which keeps preemption from
// helping at all.
func (w *Worker) runLocked() { // want runLocked:"mayBlock"
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for { // want `polling loop`
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		if t, ok := w.steal(); ok {
			t()
		}
	}
}

// runGosched is the usual fix: yield when no work was found.
func (w *Worker) runGosched() { // want runGosched:"mayBlock"
	for {
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		if t, ok := w.steal(); ok {
			t()
			continue
		}
		runtime.Gosched()
	}
}

// runPark parks on a channel when idle.
func (w *Worker) runPark() { // want runPark:"mayBlock"
	for {
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		<-w.wake
	}
}

// runSelect parks in a select without default.
func (w *Worker) runSelect() { // want runSelect:"mayBlock"
	for {
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		select {
		case t := <-w.tasks:
			t()
		case <-w.wake:
		}
	}
}

// runSelectDefault only looks at its channels: select with a default
// never blocks, so the idle iteration still spins.
func (w *Worker) runSelectDefault() { // want runSelectDefault:"mayBlock"
	for { // want `polling loop`
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		select {
		case t := <-w.tasks:
			t()
		default:
		}
	}
}

// runSleep backs off with a sleep.
func (w *Worker) runSleep() { // want runSleep:"mayBlock"
	for {
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		time.Sleep(time.Millisecond)
	}
}

// lockedPop takes a mutex, which may park the caller.
func (w *Worker) lockedPop() (Task, bool) { // want lockedPop:"mayBlock"
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pop()
}

func (w *Worker) runLockedPop() { // want runLockedPop:"mayBlock"
	for {
		if t, ok := w.lockedPop(); ok {
			t()
		}
	}
}

// runStop checks for shutdown: loops with an exit are not reported.
func (w *Worker) runStop() { // want runStop:"mayBlock"
	for {
		if atomic.LoadInt32(&w.stop) != 0 {
			return
		}
		if t, ok := w.pop(); ok {
			t()
		}
	}
}

// casIncrement is a compare-and-swap retry loop.
func casIncrement(p *int32) {
	for {
		old := atomic.LoadInt32(p)
		if atomic.CompareAndSwapInt32(p, old, old+1) {
			break
		}
	}
}

// runImported polls a queue of another package whose Pop never blocks.
func (w *Worker) runImported() { // want runImported:"mayBlock"
	for { // want `polling loop`
		if t, ok := w.q.Pop(); ok {
			t()
		}
	}
}

// runImportedWait parks through another package's method.
func (w *Worker) runImportedWait() { // want runImportedWait:"mayBlock"
	for {
		if t, ok := w.q.Pop(); ok {
			t()
			continue
		}
		w.q.Park()
	}
}

// runFlag loops while a local flag that nothing can clear is set.
func (w *Worker) runFlag() { // want runFlag:"mayBlock"
	running := true
	for running { // want `polling loop`
		if t, ok := w.pop(); ok {
			t()
		}
	}
}

// runFlagCleared clears its flag in the body: the condition is an exit.
func (w *Worker) runFlagCleared() { // want runFlagCleared:"mayBlock"
	running := true
	for running {
		t, ok := w.pop()
		if !ok {
			running = false
			continue
		}
		t()
	}
}

// spin has no calls: a tight loop is not this analyzer's concern.
func spin() {
	for {
	}
}

// runInterface polls through an interface, which may block.
type source interface{ Next() (Task, bool) }

func runInterface(s source) { // want runInterface:"mayBlock"
	for {
		if t, ok := s.Next(); ok {
			t()
		}
	}
}

// runGo starts each task on its own goroutine and never waits: the
// go statement does not block the loop.
func (w *Worker) runGo() {
	for { // want `polling loop`
		if t, ok := w.pop(); ok {
			go t()
		}
	}
}

// runLabeled leaves through a labeled break from an inner loop.
func (w *Worker) runLabeled() { // want runLabeled:"mayBlock"
outer:
	for {
		for i := 0; i < 3; i++ {
			t, ok := w.pop()
			if !ok {
				break outer
			}
			t()
		}
	}
}

// runInnerBreak only breaks out of an inner switch: still no exit.
func (w *Worker) runInnerBreak() { // want runInnerBreak:"mayBlock"
	for { // want `polling loop`
		t, ok := w.pop()
		switch {
		case !ok:
			break
		default:
			t()
		}
	}
}

// runRange ranges over a channel inside the loop, which blocks.
func (w *Worker) runRange() { // want runRange:"mayBlock"
	for {
		for t := range w.tasks {
			t()
		}
		w.pop()
	}
}

// runRead reads a file between polls: os.File.Read reaches a system
// call, which the mayBlock facts of the standard library carry here.
func (w *Worker) runRead(buf []byte) { // want runRead:"mayBlock"
	for {
		if t, ok := w.pop(); ok {
			t()
			continue
		}
		os.Stdin.Read(buf)
	}
}

// runTryLock only tries a lock, which never parks.
func (w *Worker) runTryLock() { // want runTryLock:"mayBlock"
	for { // want `polling loop`
		if w.mu.TryLock() {
			if t, ok := w.pop(); ok {
				t()
			}
			w.mu.Unlock()
		}
	}
}

// runCount counts its iterations in the post statement.
func (w *Worker) runCount(n int) {
	for i := 0; i < n; i++ {
		w.pop()
	}
}

// channelSpin is a select with a default that only checks for
// shutdown: it has an exit and no calls, so it is not reported here (a
// spinning select is a problem of its own).
func channelSpin(done chan struct{}) {
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				// do nothing, just spin
			}
		}
	}()
}

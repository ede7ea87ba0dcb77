package a

import (
	"os"
	"runtime"
	"syscall"

	"netns"
)

// Thread state set up through a wrapper in another package.
func crossWrapper(ch chan Request, fd int) { // want crossWrapper:"setsUpThread"
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := netns.Set(fd); err != nil {
		return
	}
	for req := range ch {
		process(req)
	}
}

// Through a wrapper of a wrapper.
func crossWrapper2(ch chan Request, fd int) { // want crossWrapper2:"setsUpThread"
	runtime.LockOSThread()
	if err := netns.Enter(fd); err != nil {
		return
	}
	for req := range ch {
		process(req)
	}
}

func setPriority() error { // want setPriority:"setsUpThread"
	return syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10)
}

// Through a wrapper in this package.
func localWrapper(ch chan Request) { // want localWrapper:"setsUpThread"
	runtime.LockOSThread()
	if err := setPriority(); err != nil {
		return
	}
	for req := range ch {
		process(req)
	}
}

// A call of another package that makes no system call is no setup.
func crossNoSyscall(ch chan Request, fd int) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	_ = netns.Name(fd)
	for req := range ch {
		process(req)
	}
}

// Nor is one that makes it only in a function it returns, or on
// another goroutine.
func crossLater(ch chan Request, fd int) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	set := netns.Later(fd)
	_ = set
	netns.Background(fd)
	for req := range ch {
		process(req)
	}
}

// The standard library's functions are no wrappers, though os.Getenv
// calls package syscall.
func stdCall(ch chan Request) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	_ = os.Getenv("LANG")
	for req := range ch {
		process(req)
	}
}

func startWrappers(ch chan Request, fd int) {
	go crossWrapper(ch, fd)
	go crossWrapper2(ch, fd)
	go localWrapper(ch)
	go crossNoSyscall(ch, fd)
	go crossLater(ch, fd)
	go stdCall(ch)
}

// An I/O thread: each iteration waits in a system call made on this
// thread (a completion port, a thread-bound handle), and the channels
// only bring control messages. The lock is the point.
func ioThread(ch chan Request, done chan struct{}, fd int) { // want ioThread:"setsUpThread"
	runtime.LockOSThread()
	for {
		if _, err := syscall.Read(fd, nil); err != nil {
			select {
			case <-done:
				return
			case req := <-ch:
				process(req)
			}
		}
	}
}

// The same through a wrapper, and with C's thread-bound library
// calls: a render loop.
func renderThread(frames chan Request, fd int) { // want renderThread:"setsUpThread"
	runtime.LockOSThread()
	for f := range frames {
		_ = netns.Set(fd)
		process(f)
	}
}

// A call in a function literal the loop only builds is not made there.
func notInLoop(ch chan Request, fd int) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	for req := range ch {
		later := func() { _ = netns.Set(fd) }
		_ = later
		process(req)
	}
}

func startIOThreads(ch chan Request, done chan struct{}, fd int) {
	go ioThread(ch, done, fd)
	go renderThread(ch, fd)
	go notInLoop(ch, fd)
}

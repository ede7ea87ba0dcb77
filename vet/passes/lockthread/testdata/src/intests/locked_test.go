package intests

import "runtime"

// A locked goroutine serving a channel, as a scheduler test builds it.
func testLocked() {
	c := make(chan bool)
	go func() {
		runtime.LockOSThread() // want `LockOSThread starvation`
		for range c {
		}
	}()
	close(c)
}

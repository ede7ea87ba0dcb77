// Package intests has a pattern in a test file and another outside.
package intests

import "runtime"

func serve(c chan int) {
	runtime.LockOSThread() // want `LockOSThread starvation`
	for range c {
	}
}

func start(c chan int) { go serve(c) }

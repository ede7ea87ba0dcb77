// A GUI-style program: the main goroutine keeps the main thread.
package main

import "runtime"

var events = make(chan int)

func init() {
	runtime.LockOSThread()
}

func main() {
	runtime.LockOSThread()
	for ev := range events {
		_ = ev
	}
}

func start() { go main() }

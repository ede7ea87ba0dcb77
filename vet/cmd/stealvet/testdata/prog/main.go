// A program with one instance of each pitfall the suite reports.
package main

import "runtime"

var done bool

func init() {
	runtime.GOMAXPROCS(1)
	runtime.GOMAXPROCS(runtime.NumCPU())
}

func worker(ch chan int) {
	runtime.LockOSThread()
	for v := range ch {
		_ = v
	}
}

func main() {
	ch := make(chan int)
	go worker(ch)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case <-quit:
				return
			default:
			}
		}
	}()
	for !done {
	}
}

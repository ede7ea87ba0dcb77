// A program with one instance of each pitfall the suite reports.
package main

import "runtime"

var done bool

func init() {
	runtime.GOMAXPROCS(1)
}

func worker(ch chan int) {
	runtime.LockOSThread()
	for v := range ch {
		_ = v
	}
}

func main() {
	runtime.GOMAXPROCS(runtime.NumCPU())
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

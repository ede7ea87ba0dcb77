package a

import (
	"fmt"
	"runtime"
	"time"
)

// The "tight loop, no preemption" program: an empty for loop in a
// goroutine, on one P.
func tightLoop() {
	runtime.GOMAXPROCS(1)
	go func() {
		for { // want `call-free infinite loop: it never ends`
			// Tight loop, no function calls, no channel ops.
			// No safepoint.
		}
	}()
	time.Sleep(time.Second)
	fmt.Println("hello")
}

// Its suggested repair yields in the loop: a call, so not reported.
func tightLoopYields() {
	go func() {
		for {
			runtime.Gosched()
		}
	}()
}

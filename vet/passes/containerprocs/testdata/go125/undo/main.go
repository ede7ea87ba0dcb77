package main

import "runtime"

// main runs after init, which set GOMAXPROCS: the call undoes it, so
// deleting it would leave the program at init's value. The fix
// restores the default instead.
func main() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `since Go 1.25`
	println(runtime.GOMAXPROCS(0))
}

package main

import (
	"fmt"
	"runtime"
)

// GOMAXPROCS with an argument below 1 only reads the setting, as
// GOMAXPROCS(0) does: the NumCPU call is the only one that sets it, and
// the fix deletes it.
func main() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `since Go 1.25`
	fmt.Println(runtime.GOMAXPROCS(-1))
}

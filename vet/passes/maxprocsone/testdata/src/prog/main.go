package main

import (
	"fmt"
	"runtime"
)

func main() {
	runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	fmt.Println(runtime.GOMAXPROCS(0))
	if len(fmt.Sprint()) == 0 {
		runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	}
}

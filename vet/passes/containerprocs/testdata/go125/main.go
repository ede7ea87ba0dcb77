package main

import "runtime"

func main() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `GOMAXPROCS\(NumCPU\(\)\) in a container: since Go 1.25 setting GOMAXPROCS switches off`
	println(runtime.GOMAXPROCS(0))
}

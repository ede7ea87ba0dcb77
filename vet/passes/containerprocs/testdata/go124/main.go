package main

import "runtime"

func main() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `GOMAXPROCS\(NumCPU\(\)\) in a container: NumCPU counts the host's CPUs.*the call repeats the pre-1.25 default`
}

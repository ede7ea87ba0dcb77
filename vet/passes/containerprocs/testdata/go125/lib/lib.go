package lib

import "runtime"

func Restore() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `since Go 1.25`
}

func Scoped() {
	defer runtime.GOMAXPROCS((runtime.NumCPU())) // want `since Go 1.25`
	runtime.GOMAXPROCS(2)
}

func Used() int {
	return runtime.GOMAXPROCS(runtime.NumCPU()) // want `since Go 1.25`
}

// Negative look-alikes.
func Others() {
	runtime.GOMAXPROCS(runtime.NumCPU() / 2)
	n := runtime.NumCPU()
	runtime.GOMAXPROCS(n)
	runtime.GOMAXPROCS(0)
}

package a

import "runtime"

func init() {
	runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise: with a single P there is no other run queue to steal from`
}

// Sharing its line with the braces: only the call goes.
func init() { runtime.GOMAXPROCS(1) } // want `GOMAXPROCS\(1\) surprise`

const one = 1

func configure() int {
	runtime.GOMAXPROCS(one)       // want `GOMAXPROCS\(1\) surprise`
	prev := runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	return prev
}

func scoped() {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // want `GOMAXPROCS\(1\) surprise`
}

// Negative look-alikes: a query, other values, a variable.
func query(n int) int {
	runtime.GOMAXPROCS(2)
	runtime.GOMAXPROCS(n)
	return runtime.GOMAXPROCS(0)
}

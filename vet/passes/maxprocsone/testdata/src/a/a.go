package a

import "runtime"

// The "GOMAXPROCS=1 surprise" init function, comment included.
func init() {
	runtime.GOMAXPROCS(1) // "for predictable behavior" // want `GOMAXPROCS\(1\) surprise: with a single P there is no other run queue to steal from`
}

// Sharing its line with the braces: only the call goes.
func init() { runtime.GOMAXPROCS(1) } // want `GOMAXPROCS\(1\) surprise`

const one = 1

func configure() int {
	runtime.GOMAXPROCS(one)       // want `GOMAXPROCS\(1\) surprise`
	prev := runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	return prev
}

// Negative: scoped changes, restored in the same function.
func scoped() {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
}

func saveRestore(work func()) {
	old := runtime.GOMAXPROCS(1)
	work()
	runtime.GOMAXPROCS(old)
	var prev = runtime.GOMAXPROCS(1)
	defer func() { runtime.GOMAXPROCS(prev) }()
}

// Saved but never restored, and restored from elsewhere: reported.
func notRestored(other int) int {
	kept := runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	runtime.GOMAXPROCS(other)
	return kept
}

// Negative look-alikes: a query, other values, a variable.
func query(n int) int {
	runtime.GOMAXPROCS(2)
	runtime.GOMAXPROCS(n)
	return runtime.GOMAXPROCS(0)
}

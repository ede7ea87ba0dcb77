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

func setAgain(threads int) {
	runtime.GOMAXPROCS(1)
	runtime.GOMAXPROCS(0) // a query does not undo it: see the next function
	runtime.GOMAXPROCS(threads)
}

// Saved but never restored, or set to 1 after the other call: reported.
func notRestored(other int) int {
	runtime.GOMAXPROCS(other)
	kept := runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	runtime.GOMAXPROCS(0)
	return kept
}

// A negative argument only queries, like 0: nothing is restored.
func queryNegative() {
	runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	runtime.GOMAXPROCS(-1)
}

func setOneTwice() {
	runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
	runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
}

// Negative look-alikes: a query, other values, a variable.
func query(n int) int {
	runtime.GOMAXPROCS(2)
	runtime.GOMAXPROCS(n)
	return runtime.GOMAXPROCS(0)
}

// The old value passed through an expression before it is saved: still
// a GOMAXPROCS(1) that the same function follows with another call.
func savedThroughConversion() {
	prev := int64(runtime.GOMAXPROCS(1))
	defer runtime.GOMAXPROCS(int(prev))
}

func loggedThenRestored(threads int) {
	println("was", runtime.GOMAXPROCS(1))
	runtime.GOMAXPROCS(threads)
}

// Passed to something other than a deferred GOMAXPROCS, with no call
// after it: reported.
func loggedOnly() {
	println("was", runtime.GOMAXPROCS(1)) // want `GOMAXPROCS\(1\) surprise`
}

// Package maxprocsone defines an Analyzer that reports
// runtime.GOMAXPROCS(1) in non-test code.
//
// # Pitfall: GOMAXPROCS=1 surprise
//
//	func init() {
//		runtime.GOMAXPROCS(1) // "for predictable behavior"
//	}
//
// GOMAXPROCS is the number of Ps, the run queues of the scheduler.
// With one P there is no other queue to steal from and no second
// thread running Go code: the program that scaled in a benchmark runs
// its goroutines one at a time in production, and a goroutine that
// spins or holds its thread stalls all the others.
//
// Instead, delete the call and keep the default, which since Go 1.25
// also follows the container's CPU limit. To try a one-P run, set the
// GOMAXPROCS environment variable for that run, or do it in a test.
//
// # What is reported
//
// A call runtime.GOMAXPROCS(n) where n is a constant equal to 1 (a
// literal or a named constant), outside _test.go files. When the call
// is a statement of its own directly in the body of an init function,
// or of main in package main, a suggested fix deletes it: there it
// only configures the program, and deleting it restores the default.
// (Not when it is the file's only use of import . "runtime": the
// drivers do not remove an unused dot import, so the result would not
// compile.)
// Elsewhere the call may be part of a save/restore pair or its result
// may be used, so no fix is offered.
//
// # What is deliberately not reported
//
//   - runtime.GOMAXPROCS(0), which only queries the value, and any
//     other constant or non-constant argument.
//   - Calls in _test.go files: tests pin GOMAXPROCS on purpose, to
//     make a schedule reproducible, and do not ship.
//   - A scoped change: defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)),
//     or a GOMAXPROCS(1) that the same function follows with another
//     GOMAXPROCS call setting a value other than 1, such as
//     old := runtime.GOMAXPROCS(1); ...; runtime.GOMAXPROCS(old).
//     Measurement helpers (testing.AllocsPerRun) and tests that must
//     live in non-test files (cgo tests) do this; the program gets its
//     Ps back.
package maxprocsone

// Package selectspin defines an Analyzer that reports for loops that
// poll channels with a select whose default case lets an iteration end
// without blocking: channel-driven spins.
//
// # Pitfall: channel-driven spin
//
//	for {
//		select {
//		case <-done:
//			return
//		default:
//			// do nothing, just spin
//		}
//	}
//
// A select with a default never blocks, so this goroutine never parks.
// It holds its P and a CPU at 100% while it waits for done: work
// stealing spreads the other goroutines over the remaining Ps, but
// cannot take this P back, and async preemption (Go 1.14+) only slices
// the spin into 10ms turns that it immediately resumes.
//
// Instead, let the select block: remove the default, and add a timer
// case (a time.Ticker's channel) if the loop also has periodic work to
// do. The goroutine then parks between events and its P runs others.
//
// # What is reported
//
// A for statement whose body holds a select with a default case (not
// inside a nested loop or function literal) such that the default path
// of an iteration, that is the condition, the post statement, the body
// without the select's other cases, and the default case itself:
//
//   - makes no call other than runtime.Gosched and the sync/atomic
//     loads and stores a poll uses, and no channel operation outside
//     the select's cases, no go or defer statement, no blocking select;
//   - cannot end the loop by itself: no unguarded return or break, and
//     no loop condition or exit guard that reads what the default path
//     writes (package loopfx decides this, as for callfreeloop).
//
// A default path whose only call is runtime.Gosched is reported with
// its own message: Gosched lets goroutines that are already runnable
// take the P, which makes the spin milder, not gone, since the loop is
// runnable again at once and burns the CPU whenever the P has nothing
// else to do.
//
// # Suggested fix
//
// Only for the exact shape above: an unconditional for {} whose body is
// the select alone, with an empty default and at least one other case,
// whose channel and value operands call nothing but a Done method.
// Removing the default then changes nothing but the waiting: the loop
// runs the same cases in the same order, parked in between. (The
// operands are evaluated on every entry to the select, so without the
// default a call there, such as case out <- next() or case
// <-time.After(d), would run less often.)
//
// # What is deliberately not reported
//
//   - A default that blocks or works: it calls time.Sleep, another
//     function, or does a channel operation.
//   - A loop that blocks elsewhere in its body (a channel receive, a
//     select without default, a call).
//   - Bounded polling: a counter on the default path ends the loop,
//     also one counted with sync/atomic (atomic.AddInt64(&tries, 1),
//     tries.Add(1)).
//   - Draining loops whose default leaves the loop (return, break L).
//   - Draining loops that run only while a channel a case receives
//     from holds a value, for len(ch) > 0 { select { case <-ch: ...
//     default: } } (or while one a case sends to has room, len(ch) <
//     cap(ch)), as the loop's condition or an exit in front of the
//     select says (if len(ch) == 0 { return }), when every iteration
//     reaches the select: the case is ready whenever the loop runs, so
//     the default runs only after another goroutine took the value,
//     and the next check ends the loop.
//   - A select without default (staticcheck's SA5004 covers an empty
//     default in a for-select; this analyzer also covers defaults with
//     statements, atomic polls and Gosched, and statements around the
//     select).
//   - _test.go files, unless -selectspin.tests is set: tests build CPU hogs on purpose to exercise the scheduler.
package selectspin

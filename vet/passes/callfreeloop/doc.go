// Package callfreeloop defines an Analyzer that reports for loops that
// make no call and no channel operation and that nothing inside them
// can end: tight spins and busy-waits.
//
// # Pitfall: tight loop, no preemption
//
// A loop such as
//
//	for {}
//	for !done {}
//	for x == 0 { i++ }
//
// never reaches a function call, so before Go 1.14 it could not be
// preempted at all and could hang a GOMAXPROCS=1 program. Since Go 1.14
// the runtime preempts it asynchronously (sysmon asks for preemption
// of a goroutine that has run for 10ms; see preemptone in the runtime's
// proc.go), so the program no longer hangs, but two things stay wrong:
//
//   - The loop holds a P for as long as it spins. Work stealing moves
//     runnable goroutines to idle Ps; it cannot make a spinning one
//     give its P back sooner than the next preemption, and that P's
//     CPU does nothing useful.
//   - A busy-wait on a plain variable that another goroutine sets is a
//     data race. The compiler may keep the variable in a register and
//     hoist the test out of the loop, so the loop may never see the
//     store at all.
//
// Instead, wait on something that parks the goroutine: a channel
// receive, sync.WaitGroup.Wait, sync.Cond.Wait, or select {} to block
// forever. If spinning is really wanted, load the flag with sync/atomic
// (which this analyzer does not report, since the load is a call).
//
// # What is reported
//
// A for statement (not a range statement, whose iterations are bounded
// or block) whose condition, post statement and body contain no call
// (conversions and the builtins len, cap, min, max and the like do not
// count), no channel send or receive, no select, go or defer statement,
// and which nothing it writes can end: its condition, and the guard of
// every return or break that leaves it, read only memory the loop
// itself never writes. The check is in package loopfx; see there for
// how writes through pointers and aliases are treated (conservatively).
//
// # What is deliberately not reported
//
//   - Counting loops and any loop whose condition or exit guard reads
//     what its body or post statement writes, for example
//     for i := 0; i < n; i++ { sum += a[i] } or for p != nil { p = p.next }.
//   - Loops with any call, including atomic loads, runtime.Gosched and
//     time.Sleep: a call may change the condition, and spinning on an
//     atomic is a deliberate choice this analyzer leaves alone.
//   - Loops with a select: the selectspin analyzer owns those.
//   - Loops that leave unconditionally, or through goto.
//   - The runtime's "never returns" idiom, for { *(*int)(nil) = 0 }
//     (also with the nil converted through unsafe.Pointer, or, inside
//     the loop, var p *T; *p = v), which faults on its first iteration. A nil pointer declared before the loop is reported.
//   - Loops that control cannot reach, such as a for {} after a call
//     to panic, os.Exit or a function that always panics, written only
//     because a function with results must end in a terminating
//     statement (reachability comes from the ctrlflow analyzer).
//   - _test.go files, unless -callfreeloop.tests is set: tests spin on
//     purpose to exercise the scheduler.
//
// staticcheck's SA5002 reports only the empty for {} loop; this
// analyzer also reports busy-waits with a condition or a body.
package callfreeloop

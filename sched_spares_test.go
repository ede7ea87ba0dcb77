package steal

import (
	"runtime"
	"testing"
)

// A spare (Block's, or lend's) that a producer wakes for a new task, and
// whose Block (or wait) ends before it looks at the queues, retires. The
// producer woke it instead of a parked worker, counting it as spinning, so
// it must not retire without handing that wakeup on: else the task waits
// in the inject queue with every worker asleep.
//
// On one processor the order is fixed: Submit wakes the spare (the last
// to park, so the first woken) and the test goroutine goes on to end the
// spare's Block before the spare runs, so it wakes to find its Block over.
func TestRetiringSpareHandsOnItsWakeup(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for round := range 20 {
		p := New(WithWorkers(1))
		if !waitUntil(func() bool { return p.nidle.Load() == 1 }) {
			t.Fatal("the worker did not park")
		}
		// The spare runs one task first, so that its next look does not
		// begin with the inject queue (every 61st does).
		s := p.spares.start(p, &task{fn: func(*Worker) {}, ctx: p.ctx})
		if !waitUntil(func() bool { return p.nidle.Load() == 2 }) {
			t.Fatal("the spare did not park")
		}
		ran := make(chan struct{})
		if err := p.Submit(nil, func(*Worker) { close(ran) }); err != nil {
			t.Fatal(err)
		}
		close(s.quit) // the spare's Block returns
		if _, ok := await(ran); !ok {
			t.Fatalf("round %d: a task submitted as a spare retired did not run in %v\n%s", round, hang, p.SchedTrace(0))
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

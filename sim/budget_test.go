package sim

import (
	"testing"
	"time"
)

// MaxEvents stops a run after that many events, unfinished and saying so,
// with every job either done or left; a budget that suffices changes
// nothing.
func TestMaxEventsStopsTheRun(t *testing.T) {
	queues := [][]Task{fixed(10*ms, 10*ms, 10*ms, 10*ms, 10*ms, 10*ms), nil, nil}
	p := Policy{Mode: StealOne}
	o := Options{StealLatency: time.Millisecond}
	full := Simulate(queues, p, o)
	if !full.Finished || full.OutOfEvents || full.Events < 6 {
		t.Fatalf("unlimited run: finished %v, out of events %v, %d events", full.Finished, full.OutOfEvents, full.Events)
	}
	o.MaxEvents = full.Events
	if r := Simulate(queues, p, o); !r.Finished || r.OutOfEvents || r.Makespan != full.Makespan {
		t.Fatalf("budget of exactly %d events: finished %v, out of events %v", full.Events, r.Finished, r.OutOfEvents)
	}
	o.MaxEvents = 3
	r := Simulate(queues, p, o)
	if r.Finished || !r.OutOfEvents || r.Events != 3 || r.Jobs()+r.Left() != 6 {
		t.Fatalf("budget of 3: finished %v, out of events %v, %d events, %d done + %d left",
			r.Finished, r.OutOfEvents, r.Events, r.Jobs(), r.Left())
	}
	// The run stops at its third event, the steal requests of w1 and w2
	// arriving at 1 ms and w0's first job finishing at 10 ms.
	if r.Makespan != 10*ms || r.Busy[0] != 10*ms || r.Busy[1] != 9*ms {
		t.Fatalf("stopped at %v with busy %v; want 10ms, w0 10ms, w1 9ms", r.Makespan, r.Busy)
	}
}

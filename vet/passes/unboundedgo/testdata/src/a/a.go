package a

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

type Event struct{ id int }

func process(ev Event) {}

// hotProducer is the classic example: one goroutine per event.
func hotProducer(events chan Event) {
	for {
		ev := <-events
		go process(ev) // want `go statement per received event with no bound on concurrency`
	}
}

// rangeEvents is the same with a range over the channel.
func rangeEvents(events <-chan Event) {
	for ev := range events {
		go process(ev) // want `go statement per received event`
	}
}

// selectEvents receives in a select, with a cancellation case.
func selectEvents(ctx context.Context, events chan Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-events:
			go func() { // want `go statement per received event`
				process(ev)
			}()
		}
	}
}

// fanOut starts a goroutine per item of each received batch.
func fanOut(batches chan []Event) {
	for batch := range batches {
		for _, ev := range batch {
			go process(ev) // want `go statement per received event`
		}
	}
}

// boundInside acquires the slot inside the goroutine: the goroutines
// themselves still pile up.
func boundInside(events chan Event, sem chan struct{}) {
	for ev := range events {
		go func() { // want `go statement per received event`
			sem <- struct{}{}
			defer func() { <-sem }()
			process(ev)
		}()
	}
}

// semaphore is the usual fix: acquire a slot before the go statement.
func semaphore(events chan Event) {
	const N = 100
	sem := make(chan struct{}, N)
	for ev := range events {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			process(ev)
		}()
	}
}

// pool is the other fix: a fixed number of workers, and back pressure
// on the producer.
func pool(events chan Event) {
	const N = 100
	work := make(chan Event, 1000)
	for i := 0; i < N; i++ {
		go func() {
			for ev := range work {
				process(ev)
			}
		}()
	}
	for ev := range events {
		work <- ev
	}
}

// tokens takes a token from a pre-filled channel before each start.
func tokens(events chan Event, tok chan struct{}) {
	for {
		ev := <-events
		<-tok
		go func() {
			defer func() { tok <- struct{}{} }()
			process(ev)
		}()
	}
}

// batch waits for the goroutines of each received batch.
func batch(batches chan []Event) {
	for b := range batches {
		var wg sync.WaitGroup
		for _, ev := range b {
			wg.Add(1)
			go func() {
				defer wg.Done()
				process(ev)
			}()
		}
		wg.Wait()
	}
}

// join waits for each goroutine before taking the next event.
func join(events chan Event) {
	for {
		ev := <-events
		done := make(chan struct{})
		go func() {
			defer close(done)
			process(ev)
		}()
		<-done
	}
}

type weighted struct{}

func (*weighted) Acquire(ctx context.Context, n int64) error { return nil }
func (*weighted) Release(n int64)                            {}

// acquire uses a semaphore.Weighted-like type.
func acquire(ctx context.Context, events chan Event, sem *weighted) {
	for ev := range events {
		if err := sem.Acquire(ctx, 1); err != nil {
			return
		}
		go func() {
			defer sem.Release(1)
			process(ev)
		}()
	}
}

// once starts a single worker on the first event.
func once(events chan Event) {
	started := false
	for ev := range events {
		if !started {
			started = true
			go process(ev)
		}
	}
}

// counted keeps an atomic count of running goroutines under a limit.
func counted(events chan Event, running *int32) {
	for ev := range events {
		if atomic.AddInt32(running, 1) <= 8 {
			go func() {
				defer atomic.AddInt32(running, -1)
				process(ev)
			}()
		} else {
			atomic.AddInt32(running, -1)
		}
	}
}

// ticker starts a refresh per tick: time-driven, not event-driven.
func ticker(t *time.Ticker) {
	for range t.C {
		go process(Event{})
	}
}

// batcher receives events into a buffer and starts a flush per tick:
// the go statement is in the ticker's case, time-driven, even though
// the loop receives events before it.
func batcher(t *time.Ticker, events chan Event) {
	var buf []Event
	for {
		select {
		case ev := <-events:
			buf = append(buf, ev)
		case <-t.C:
			go process(buf[0])
			buf = nil
		}
	}
}

// accept is the net/http idiom, deliberately not reported.
func accept(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
		}()
	}
}

// acceptQuit is the accept loop of many servers: a non-blocking check
// of a quit channel tells shutdown from a temporary error. The quit
// receive ends the loop: a shutdown signal, not an event.
func acceptQuit(l net.Listener, quit chan struct{}) {
	for {
		c, err := l.Accept()
		if err != nil {
			select {
			case <-quit:
				return
			default:
			}
			continue
		}
		go c.Close()
	}
}

// quitFirst checks a quit channel before each accept, like doneOnly.
func quitFirst(l net.Listener, quit chan struct{}) {
loop:
	for {
		select {
		case <-quit:
			break loop
		default:
		}
		c, err := l.Accept()
		if err != nil {
			return
		}
		go c.Close()
	}
}

// quitAndEvents: the quit case ends the loop, the other case brings
// events.
func quitAndEvents(events chan Event, quit chan struct{}) {
	for {
		select {
		case <-quit:
			return
		case ev := <-events:
			go process(ev) // want `go statement per received event with no bound on concurrency`
		}
	}
}

// quitNotEnding: a case that goes on after the receive takes an event.
func quitNotEnding(pings chan struct{}) {
	for {
		select {
		case <-pings:
		}
		go process(Event{}) // want `go statement per received event with no bound on concurrency`
	}
}

// counting loops start a fixed pool.
func fixed(events chan Event) {
	for i := 0; i < 4; i++ {
		go func() {
			for ev := range events {
				process(ev)
			}
		}()
	}
}

// nested starts goroutines in a closure defined in the loop: the
// closure's own go statement is not tied to the loop.
func nested(events chan Event) {
	for ev := range events {
		start := func() { go process(ev) }
		_ = start
	}
}

// doneOnly waits on cancellation only: no event is received.
func doneOnly(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		default:
		}
		go process(Event{})
		time.Sleep(time.Second)
	}
}

// cancelCheck checks cancellation before each start, which does not
// bound anything.
func cancelCheck(ctx context.Context, events chan Event) {
	for ev := range events {
		select {
		case <-ctx.Done():
			return
		default:
		}
		go process(ev) // want `go statement per received event`
	}
}

// tryAcquire drops events when no slot is free.
func tryAcquire(events chan Event, sem chan struct{}) {
	for ev := range events {
		select {
		case sem <- struct{}{}:
			go func() {
				defer func() { <-sem }()
				process(ev)
			}()
		default:
		}
	}
}

// notify tries to send a notice before each start: a send in a select
// with a default never waits, so it bounds only what its case runs.
func notify(events chan Event, notices chan int) {
	for ev := range events {
		select {
		case notices <- 1:
		default:
		}
		go process(ev) // want `go statement per received event`
	}
}

// budget starts workers against a budget it checks in the loop, as
// prometheus.Registry.Gather does.
func budget(events chan Event, collectors []func()) {
	goroutineBudget := len(collectors)
	for {
		select {
		case ev := <-events:
			process(ev)
		default:
			if goroutineBudget <= 0 {
				process(<-events)
				break
			}
			go process(Event{})
			goroutineBudget--
		}
	}
}

// atomicBudget counts the running goroutines with sync/atomic, since
// they count themselves down: a budget like the one above.
func atomicBudget(events chan Event, max int32) {
	var active int32
	for ev := range events {
		for atomic.LoadInt32(&active) >= max {
			time.Sleep(time.Millisecond)
		}
		atomic.AddInt32(&active, 1)
		go func() {
			defer atomic.AddInt32(&active, -1)
			process(ev)
		}()
	}
}

// atomicTypeBudget is the same with an atomic.Int32.
func atomicTypeBudget(events chan Event, max int32) {
	var active atomic.Int32
	for ev := range events {
		for active.Load() >= max {
			time.Sleep(time.Millisecond)
		}
		active.Add(1)
		go func() {
			defer active.Add(-1)
			process(ev)
		}()
	}
}

// atomicNotChecked counts with sync/atomic, but no condition reads the
// count: not a budget.
func atomicNotChecked(events chan Event) {
	var started atomic.Int64
	for ev := range events {
		started.Add(1)
		go process(ev) // want `go statement per received event`
	}
}

// countedInBody is a counting loop with a token semaphore.
func countedInBody(tokens chan struct{}, n int) {
	for i := 0; i < n; {
		<-tokens
		i++
		go func() {
			defer func() { tokens <- struct{}{} }()
			process(Event{})
		}()
	}
}

// twoStreams starts a goroutine per event of either of two streams: the
// second case's receive is another event, not a wait for the first
// case's goroutine.
func twoStreams(ctx context.Context, events, urgent chan Event) {
	for {
		select {
		case ev := <-events:
			go process(ev) // want `go statement per received event`
		case ev := <-urgent:
			go process(ev) // want `go statement per received event`
		case <-ctx.Done():
			return
		}
	}
}

// A channel typed by a type parameter is an event stream like any other.
func genericEvents[C ~chan E, E any](events C, handle func(E)) {
	for ev := range events {
		go handle(ev) // want `go statement per received event with no bound on concurrency`
	}
}

func genericReceive[C ~chan Event](events C) {
	for {
		ev := <-events
		go process(ev) // want `go statement per received event with no bound on concurrency`
	}
}

// A type-parameter channel of time.Time is a ticker's: not events.
func genericTicks[C ~<-chan time.Time](ticks C) {
	for range ticks {
		go process(Event{})
	}
}

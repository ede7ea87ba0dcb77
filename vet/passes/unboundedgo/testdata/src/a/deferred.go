package a

import "sync"

// A Wait deferred in the loop runs when the function returns, after
// every event: it bounds nothing.
func deferredWait(events chan Event) {
	var wg sync.WaitGroup
	for ev := range events {
		wg.Add(1)
		go func() { // want `go statement per received event`
			defer wg.Done()
			process(ev)
		}()
		defer wg.Wait()
	}
}

// Nor does a deferred send.
func deferredSend(events chan Event, sem chan struct{}) {
	for ev := range events {
		go process(ev) // want `go statement per received event`
		defer func() { sem <- struct{}{} }()
		defer func(s chan struct{}) { s <- struct{}{} }(sem)
	}
}

// A function literal called in place runs its go statement once per
// event.
func calledInPlace(events chan Event) {
	for ev := range events {
		func() {
			go process(ev) // want `go statement per received event`
		}()
	}
}

// In place, with a bound inside the literal.
func calledInPlaceBounded(events chan Event, sem chan struct{}) {
	for ev := range events {
		func() {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				process(ev)
			}()
		}()
	}
}

// In place, with the bound in the loop around the literal.
func calledInPlaceBoundOutside(events chan Event, sem chan struct{}) {
	for ev := range events {
		sem <- struct{}{}
		func() {
			go func() {
				defer func() { <-sem }()
				process(ev)
			}()
		}()
	}
}

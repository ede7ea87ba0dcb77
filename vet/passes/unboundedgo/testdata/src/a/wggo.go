package a

import "sync"

// sync.WaitGroup.Go starts a goroutine as a go statement does.
func waitGroupGo(events chan Event) {
	var wg sync.WaitGroup
	for ev := range events {
		wg.Go(func() { process(ev) }) // want `WaitGroup.Go per received event`
	}
	wg.Wait()
}

func waitGroupGoSelect(events chan Event, quit chan struct{}, wg *sync.WaitGroup) {
	for {
		select {
		case ev := <-events:
			wg.Go(func() { process(ev) }) // want `WaitGroup.Go per received event`
		case <-quit:
			return
		}
	}
}

// Bounded as a go statement is: a semaphore, a wait per event.
func waitGroupGoSemaphore(events chan Event, sem chan struct{}) {
	var wg sync.WaitGroup
	for ev := range events {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			process(ev)
		})
	}
	wg.Wait()
}

func waitGroupGoJoin(events chan Event) {
	for ev := range events {
		var wg sync.WaitGroup
		wg.Go(func() { process(ev) })
		wg.Wait()
	}
}

// Over a slice: a fixed set, not events.
func waitGroupGoSlice(evs []Event) {
	var wg sync.WaitGroup
	for _, ev := range evs {
		wg.Go(func() { process(ev) })
	}
	wg.Wait()
}

package a

// A pool of worker ids, as the compiler's backend queue keeps: a
// goroutine starts only with an id, and gives it back on done when it
// ends; the ids are the bound.
func workerIDs(workq chan func(int), n int) {
	done := make(chan int)
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case id := <-done:
			ids = append(ids, id)
		}
		for len(pending) > 0 && len(ids) > 0 {
			work := pending[len(pending)-1]
			id := ids[len(ids)-1]
			pending = pending[:len(pending)-1]
			ids = ids[:len(ids)-1]
			go func() {
				work(id)
				done <- id
			}()
		}
	}
}

// The same with an if and a count of free slots.
func freeSlots(events chan Event, n int) {
	done := make(chan struct{})
	free := n
	var pending []Event
	for {
		select {
		case ev := <-events:
			pending = append(pending, ev)
		case <-done:
			free++
		}
		if free > 0 && len(pending) > 0 {
			ev := pending[0]
			pending = pending[1:]
			free--
			go func() {
				process(ev)
				done <- struct{}{}
			}()
		}
	}
}

// Draining the pending events without a pool bounds nothing.
func drainPending(workq chan func(int)) {
	done := make(chan int)
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case <-done:
		}
		for len(pending) > 0 {
			work := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			go func() { // want `go statement per received event`
				work(0)
				done <- 0
			}()
		}
	}
}

// Ids that also come back from elsewhere than the goroutines' done
// channel are no bound.
func idsRefilled(workq chan func(int), more chan int) {
	done := make(chan int)
	var ids []int
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case id := <-done:
			ids = append(ids, id)
		case id := <-more:
			ids = append(ids, id)
		}
		for len(pending) > 0 && len(ids) > 0 {
			work := pending[len(pending)-1]
			id := ids[len(ids)-1]
			pending = pending[:len(pending)-1]
			ids = ids[:len(ids)-1]
			go func() { // want `go statement per received event`
				work(id)
				done <- id
			}()
		}
	}
}

// A done channel that the goroutine does not send on is not its
// completion.
func notTheirDone(workq chan func(int), done chan int) {
	var ids []int
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case id := <-done:
			ids = append(ids, id)
		}
		for len(pending) > 0 && len(ids) > 0 {
			work := pending[len(pending)-1]
			id := ids[len(ids)-1]
			pending = pending[:len(pending)-1]
			ids = ids[:len(ids)-1]
			go func() { // want `go statement per received event`
				work(id)
			}()
		}
	}
}

// An || lets the loop start goroutines without an id.
func eitherCond(workq chan func(int), n int) {
	done := make(chan int)
	ids := make([]int, n)
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case id := <-done:
			ids = append(ids, id)
		}
		for len(pending) > 0 && (len(ids) > 0 || n > 0) {
			work := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			if len(ids) > 0 {
				ids = ids[:len(ids)-1]
			}
			go func() { // want `go statement per received event`
				work(0)
				done <- 0
			}()
		}
	}
}

// A body that adds to the pool takes nothing from it.
func growsPool(workq chan func(int), n int) {
	done := make(chan int)
	ids := make([]int, n)
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case id := <-done:
			ids = append(ids, id)
		}
		for len(pending) > 0 && len(ids) > 0 {
			work := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			ids = append(ids, 0)
			go func() { // want `go statement per received event`
				work(0)
				done <- 0
			}()
		}
	}
}

// A body that takes an id and puts one back takes nothing.
func takesAndGives(workq chan func(int), n int) {
	done := make(chan int)
	ids := make([]int, n)
	var pending []func(int)
	for {
		select {
		case work := <-workq:
			pending = append(pending, work)
		case id := <-done:
			ids = append(ids, id)
		}
		for len(pending) > 0 && len(ids) > 0 {
			work := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			ids = ids[:len(ids)-1]
			go func() { // want `go statement per received event`
				work(0)
				done <- 0
			}()
			ids = append(ids, 0)
		}
	}
}

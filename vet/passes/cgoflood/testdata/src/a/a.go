package a

/*
static void long_running_c_function(void *p, int n) { (void)p; (void)n; }
*/
import "C"

import (
	"clib"
	"net/http"
	"unsafe"
)

// process is the example's function: it calls C.
func process(data []byte) { // want process:"callsCgo"
	C.long_running_c_function(unsafe.Pointer(&data[0]), C.int(len(data)))
}

func pure(data []byte) int { return len(data) }

// flood starts a C call per event.
func flood(events chan []byte) { // want flood:"callsCgo"
	for ev := range events {
		go process(ev) // want `goroutine that calls C started in a loop with no bound`
	}
}

// bounded caps the simultaneous C calls with a semaphore.
func bounded(events chan []byte) { // want bounded:"callsCgo"
	sem := make(chan struct{}, 8)
	for ev := range events {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			process(ev) // cgo inside
		}()
	}
}

// imported starts goroutines on another package's wrappers.
func imported(chunks [][]byte) { // want imported:"callsCgo"
	for _, c := range chunks {
		go clib.Compress(c) // want `goroutine that calls C started in a loop`
	}
	for _, c := range chunks {
		go func() { // want `goroutine that calls C started in a loop`
			clib.CompressAll([][]byte{c})
		}()
	}
}

// strings only converts strings in its goroutines.
func strings(names []string) {
	for _, n := range names {
		go clib.Name(n)
	}
}

// noC starts goroutines that never call C.
func noC(events chan []byte) {
	for ev := range events {
		go pure(ev)
	}
}

// pool starts a fixed number of workers that call C.
func pool(events chan []byte) { // want pool:"callsCgo"
	for i := 0; i < 4; i++ {
		go func() {
			for ev := range events {
				process(ev)
			}
		}()
	}
}

// handler starts a C call per request.
func handler(w http.ResponseWriter, r *http.Request) { // want handler:"callsCgo"
	go process(nil) // want `goroutine that calls C started per request with no bound`
}

// direct starts the C function itself in a goroutine, per event.
func direct(events chan []byte) { // want direct:"callsCgo"
	for range events {
		go C.long_running_c_function(nil, 0) // want `goroutine that calls C started in a loop`
	}
}

// once starts a C call outside any loop: not reported.
func once(data []byte) { // want once:"callsCgo"
	go process(data)
}

// dispatch starts the C call on its own goroutine.
func dispatch(data []byte) { // want dispatch:"callsCgo"
	go process(data)
}

// viaDispatch starts a dispatcher per event: as many C calls.
func viaDispatch(events chan []byte) { // want viaDispatch:"callsCgo"
	for ev := range events {
		go dispatch(ev) // want `goroutine that calls C started in a loop`
	}
}

// funcValue starts goroutines through a func value: unknown target.
func funcValue(events chan []byte, f func([]byte)) {
	for ev := range events {
		go f(ev)
	}
}

// countedPool counts its workers in the body: a fixed pool.
func countedPool(events chan []byte, n int) { // want countedPool:"callsCgo"
	for i := 0; i < n; {
		i++
		go func() {
			for ev := range events {
				process(ev)
			}
		}()
	}
}

// budget starts C calls against a budget checked by the loop.
func budget(events chan []byte) { // want budget:"callsCgo"
	running := 0
	for ev := range events {
		if running >= 8 {
			continue
		}
		go process(ev)
		running++
	}
}

// Worker takes its events from a channel and calls C for each.
type Worker struct{ in chan []byte }

func (w *Worker) loop() { // want loop:"callsCgo"
	for ev := range w.in {
		process(ev)
	}
}

// slicePool starts one worker per element of a fixed slice: the fixed
// pool of workers that the analyzer recommends.
func slicePool(workers []*Worker) { // want slicePool:"callsCgo"
	for _, w := range workers {
		go w.loop()
	}
	for _, w := range workers {
		go func() {
			for {
				process(<-w.in)
			}
		}()
	}
}

// sliceFlood starts one C call per element of a slice: as many at once
// as the slice is long.
func sliceFlood(data [][]byte) { // want sliceFlood:"callsCgo"
	for _, d := range data {
		go process(d) // want `goroutine that calls C started in a loop`
	}
}

// twoStreams starts a C call per event of either stream.
func twoStreams(events, urgent chan []byte, done chan struct{}) { // want twoStreams:"callsCgo"
	for {
		select {
		case ev := <-events:
			go process(ev) // want `goroutine that calls C started in a loop with no bound`
		case ev := <-urgent:
			go process(ev) // want `goroutine that calls C started in a loop with no bound`
		case <-done:
			return
		}
	}
}

// rangeCount starts n C calls: a counting loop, a fixed pool.
func rangeCount(data []byte, n int) { // want rangeCount:"callsCgo"
	for range n {
		go process(data)
	}
}

// rangeCountGeneric is the same loop with a type parameter for n.
func rangeCountGeneric[N ~int](data []byte, n N) { // want rangeCountGeneric:"callsCgo"
	for range n {
		go process(data)
	}
}

// rangeGenericChan ranges over a channel typed by a type parameter: an
// event loop.
func rangeGenericChan[C ~chan []byte](events C) { // want rangeGenericChan:"callsCgo"
	for ev := range events {
		go process(ev) // want `goroutine that calls C started in a loop`
	}
}

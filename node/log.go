package node

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// maxQueuedReports is how many reports of skipped input wait for a slow
// log before more are dropped (and counted).
const maxQueuedReports = 1024

// logStall is how long Serve, at the end of its input, waits for a log
// that has taken no report at all before it returns without the rest.
var logStall = time.Second

// Reports writes reports of skipped input to a log from a goroutine of
// their own, started at the first report, so that a log nobody reads
// cannot stop the node: Serve uses one, and so may a program that serves
// the protocol over a transport of its own. A peer that pipes the node's
// stderr and reads only its stdout (a subprocess whose stderr is a pipe
// read at the end, or never) fills the pipe after a few hundred reports;
// a write to it then blocks, and with it every reply after it, for ever.
// Reports wait in a queue of 1024; past that they are dropped, and how
// many is reported in their place as soon as the queue has room.
//
// Make one with NewReports. One goroutine at a time may call Printf;
// Close, once, at the end.
type Reports struct {
	log     io.Writer
	queue   chan string
	done    chan struct{} // closed when the writer has written the whole queue
	written atomic.Int64  // reports written, so that close tells a slow log from a stuck one
	dropped int           // reports dropped since the last one queued
}

// NewReports returns Reports that write to log.
func NewReports(log io.Writer) *Reports { return &Reports{log: log} }

// Printf queues a report, formatted as fmt.Sprintf does, or drops it
// when the queue is full. It never blocks.
func (r *Reports) Printf(format string, args ...any) {
	if r.queue == nil {
		r.queue, r.done = make(chan string, maxQueuedReports), make(chan struct{})
		go r.write()
	}
	if r.dropped > 0 && !r.send(droppedReport(r.dropped)) {
		r.dropped++
		return
	}
	r.dropped = 0
	if !r.send(fmt.Sprintf(format, args...)) {
		r.dropped = 1
	}
}

// send queues s unless the queue is full.
func (r *Reports) send(s string) bool {
	select {
	case r.queue <- s:
		return true
	default:
		return false
	}
}

func droppedReport(n int) string {
	return fmt.Sprintf("steal node: %d reports dropped: the log was not being read\n", n)
}

// write writes the queued reports until the queue is closed.
func (r *Reports) write() {
	defer close(r.done)
	for s := range r.queue {
		io.WriteString(r.log, s)
		r.written.Add(1)
	}
}

// Close writes the rest of the reports, the count of dropped ones last,
// and returns once they are written, or once the log has taken none for
// logStall: then nobody is reading it, and the writer is left blocked in
// its Write, which the process's exit ends.
func (r *Reports) Close() {
	if r.queue == nil {
		return
	}
	tick := time.NewTicker(logStall)
	defer tick.Stop()
	last := r.written.Load()
	stuck := func() bool {
		n := r.written.Load()
		moved := n != last
		last = n
		return !moved
	}
	gaveUp := false
	for r.dropped > 0 && !gaveUp {
		select {
		case r.queue <- droppedReport(r.dropped):
			r.dropped = 0
		case <-tick.C:
			gaveUp = stuck()
		}
	}
	close(r.queue) // the writer ends once its Write returns, if ever
	for !gaveUp {
		select {
		case <-r.done:
			return
		case <-tick.C:
			gaveUp = stuck()
		}
	}
}

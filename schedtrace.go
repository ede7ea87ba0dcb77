package steal

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SchedTrace returns one line describing the pool now, in the style of the
// Go runtime's GODEBUG=schedtrace output:
//
//	SCHED 1000ms: workers=4 idle=2 spinning=0 inject=0 local=[0 5 0 0] runnext=[0 1 0 0] ran=1200 steals=47 stolen=310 overflows=0 parks=9
//
// local is each worker's ring length, steals the successful steal operations
// and stolen the tasks they moved. elapsed is printed as given. Any
// goroutine may call it.
func (p *Pool) SchedTrace(elapsed time.Duration) string {
	p.made("Pool.SchedTrace")
	s := p.Stats()
	var local, next strings.Builder
	for i, w := range s.Workers {
		if i > 0 {
			local.WriteByte(' ')
			next.WriteByte(' ')
		}
		fmt.Fprint(&local, w.RingLen)
		if w.Runnext {
			next.WriteByte('1')
		} else {
			next.WriteByte('0')
		}
	}
	return fmt.Sprintf("SCHED %dms: workers=%d idle=%d spinning=%d inject=%d local=[%s] runnext=[%s] ran=%d steals=%d stolen=%d overflows=%d parks=%d",
		elapsed.Milliseconds(), len(s.Workers), s.Idle, s.Spinning, s.Inject,
		local.String(), next.String(), s.Total.Ran, s.Total.Steals, s.Total.StolenIn, s.Total.Overflows, s.Total.Parks)
}

// schedTrace prints SchedTrace lines periodically. It is the one timer a
// pool may run, and only when asked for.
//
// Close stops it and waits for a line being written, so that what the
// program writes to the same writer after Close comes after the pool's
// last line; but not from the writer itself, which may call Close and
// would wait for itself, and not for longer than traceStopWait, so that a
// writer blocked on a stalled connection does not hold Close. state says
// whether a line is being written, so that no line starts once stop has
// returned; one that outlasts the wait may end after that, or never.
type schedTrace struct {
	quit     chan struct{}
	done     chan struct{} // closed when the tracer's goroutine exits
	state    atomic.Int32  // traceIdle, traceWriting or traceStopped
	gid      atomic.Int64  // the tracer goroutine's id, for stop to tell it
	stopOnce sync.Once
}

// traceStopWait bounds how long Close waits for a line being written.
const traceStopWait = time.Second

const (
	traceIdle int32 = iota
	traceWriting
	traceStopped
)

func startSchedTrace(p *Pool, every time.Duration, out io.Writer) *schedTrace {
	st := &schedTrace{quit: make(chan struct{}), done: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(st.done)
		st.gid.Store(goid())
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if !st.state.CompareAndSwap(traceIdle, traceWriting) {
					return // stopped
				}
				fmt.Fprintln(out, p.SchedTrace(time.Since(start)))
				if !st.state.CompareAndSwap(traceWriting, traceIdle) {
					return // stopped while writing
				}
			case <-st.quit:
				return
			}
		}
	}()
	return st
}

// stop ends the tracer: no line starts after it returns, and a line being
// written has ended, unless stop is called from the writer or the line
// outlasts traceStopWait (see schedTrace). Any number of calls is fine,
// from any goroutine, the writer's included.
func (st *schedTrace) stop() {
	prev := st.state.Swap(traceStopped)
	st.stopOnce.Do(func() { close(st.quit) })
	if prev != traceWriting || goid() == st.gid.Load() {
		return
	}
	t := time.NewTimer(traceStopWait)
	defer t.Stop()
	select {
	case <-st.done:
	case <-t.C:
	}
}

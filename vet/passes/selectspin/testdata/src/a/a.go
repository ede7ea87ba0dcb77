package a

import (
	"runtime"
	"sync/atomic"
	"time"
)

func retrySend(ch chan int, v int) {
	for {
		select {
		case ch <- v:
			return
		default: // want `channel-driven spin:`
		}
		// A comment after the select is not a statement.
	}
}

func yields(ch chan int) int {
	for {
		select {
		case v := <-ch:
			return v
		default: // want `channel-driven spin with runtime.Gosched`
			runtime.Gosched()
		}
	}
}

func statementsAfter(ch chan int) int {
	n := 0
	for {
		select {
		case v := <-ch:
			if v == 0 {
				return n
			}
		default: // want `channel-driven spin:`
		}
		n++
	}
}

func condSetByCase(ch chan int) {
	stopped := false
	for !stopped {
		select {
		case v := <-ch:
			stopped = v == 0
		default: // want `channel-driven spin:`
		}
	}
}

func atomicPoll(ch chan int, quit *atomic.Bool) {
	for {
		select {
		case <-ch:
		default: // want `channel-driven spin:`
			if quit.Load() {
				return
			}
		}
	}
}

func onlyDefault() {
	for {
		select {
		default: // want `channel-driven spin:`
		}
	}
}

// Negative look-alikes.

func sleeps(done chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

func noDefault(done, work chan int) {
	for {
		select {
		case <-done:
			return
		case <-work:
		}
	}
}

func blocksElsewhere(done chan struct{}, work chan int) {
	for {
		select {
		case <-done:
			return
		default:
		}
		<-work
	}
}

func works(done chan struct{}, step func()) {
	for {
		select {
		case <-done:
			return
		default:
		}
		step()
	}
}

func drain(ch chan int) int {
	n := 0
	for {
		select {
		case <-ch:
			n++
		default:
			return n
		}
	}
}

func drainLabeled(ch chan int) int {
	n := 0
loop:
	for {
		select {
		case <-ch:
			n++
		default:
			break loop
		}
	}
	return n
}

func bounded(ch chan int) bool {
	for i := 0; i < 3; i++ {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}

func defaultBreaksSelectOnly(ch chan int, n int) {
	for i := 0; i < n; i++ {
		select {
		case <-ch:
		default:
			break
		}
	}
}

// A break in a select leaves the select, not the loop.
func breakLeavesSelect(ch chan int) {
	for {
		select {
		case <-ch:
			return
		default: // want `channel-driven spin:`
			break
		}
	}
}

// sendNext evaluates next() each time it enters the select, default
// or not: without the default it would run once per send, and the
// values sent would change. Reported, but the fix is not offered.
func sendNext(out chan int, next func() int) {
	for {
		select {
		case out <- next():
		default: // want `channel-driven spin:`
		}
	}
}

// timeout makes a new timer on each entry, which with the default
// never fires: removing it would make the case fire. No fix.
func timeout(ch chan int) {
	for {
		select {
		case <-ch:
		case <-time.After(time.Second):
			return
		default: // want `channel-driven spin:`
		}
	}
}

// nestedDefault polls a second channel from the first select's default:
// when neither is ready, the loop goes round without blocking.
func nestedDefault(a, b chan int) {
	for {
		select {
		case <-a:
			return
		default: // want `channel-driven spin:`
			select {
			case <-b:
				return
			default:
			}
		}
	}
}

// nestedBlocking waits on the second channel in the first one's default:
// not a spin.
func nestedBlocking(a, b chan int) {
	for {
		select {
		case <-a:
			return
		default:
			select {
			case <-b:
			case <-a:
				return
			}
		}
	}
}

// replaceLatest sends the newest value, dropping an unread older one:
// when the send is not ready the channel is full, so the drain is ready.
// Not a spin.
func replaceLatest(ch chan int, v int) {
	for {
		select {
		case ch <- v:
			return
		default:
			select {
			case <-ch:
			default:
			}
		}
	}
}

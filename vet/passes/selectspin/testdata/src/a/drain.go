package a

// A loop that runs while the channel holds values: with a value
// buffered the receive is ready, so the default runs only when another
// receiver took the value first, and then the loop ends.
func lenDrain(ch chan int) {
	for len(ch) > 0 {
		select {
		case <-ch:
		default:
		}
	}
}

func lenDrainSum(ch chan int) (n int) {
	for 0 != len(ch) {
		select {
		case v, ok := <-ch:
			if ok {
				n += v
			}
		default:
		}
	}
	return n
}

type queue struct{ items chan int }

func (q *queue) lenDrainField(stop bool) {
	for !stop && len(q.items) >= 1 {
		select {
		case <-q.items:
		default:
		}
	}
}

// Filling a buffer: while there is room the send is ready.
func lenFill(ch chan int) {
	for len(ch) < cap(ch) {
		select {
		case ch <- 1:
		default:
		}
	}
}

// An exit guard on the same length does as well as the condition.
func lenExit(ch chan int) {
	for {
		if len(ch) == 0 {
			return
		}
		select {
		case <-ch:
		default:
		}
	}
}

// The length of another channel guards nothing: the select can take
// its default while that one stays full.
func lenOther(ch, other chan int) {
	for len(other) > 0 {
		select {
		case <-ch:
		default: // want `channel-driven spin:`
		}
	}
}

// Nor does a condition that holds while the channel is empty.
func lenOr(ch chan int, waiting bool) {
	for len(ch) > 0 || waiting {
		select {
		case <-ch:
		default: // want `channel-driven spin:`
		}
	}
}

// Nor a select that only some iterations reach.
func lenBranch(ch, other chan int, odd bool) {
	for len(ch) > 0 {
		if odd {
			select {
			case <-other:
			default: // want `channel-driven spin:`
			}
		} else {
			select {
			case <-ch:
			default:
			}
		}
	}
}

// A full buffer leaves no room to send: len(ch) > 0 says nothing
// about a send.
func lenSend(ch chan int) {
	for len(ch) > 0 {
		select {
		case ch <- 1:
		default: // want `channel-driven spin:`
		}
	}
}

// An exit guard that continues instead of leaving guards nothing.
func lenExitContinue(ch chan int, n int) {
	for {
		if len(ch) == 0 {
			n++
			continue
		}
		select {
		case <-ch:
		default: // want `channel-driven spin:`
		}
	}
}

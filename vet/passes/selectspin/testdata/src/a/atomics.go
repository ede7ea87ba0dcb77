package a

import "sync/atomic"

// Bounded polls that count their tries with sync/atomic: the count
// ends the loop.
func boundedAtomicAdd(ch chan int) bool {
	var tries int64
	for {
		select {
		case <-ch:
			return true
		default:
			atomic.AddInt64(&tries, 1)
			if atomic.LoadInt64(&tries) > 100 {
				return false
			}
		}
	}
}

type tryCounter struct{ n atomic.Int32 }

func boundedAtomicType(ch chan int, c *tryCounter) bool {
	for {
		select {
		case <-ch:
			return true
		default:
			if c.n.Add(1) > 100 {
				return false
			}
		}
	}
}

func boundedAtomicCond(ch chan int) {
	var n atomic.Int64
	for n.Load() < 100 {
		select {
		case <-ch:
		default:
			n.Add(1)
		}
	}
}

// An atomic count that no exit reads ends nothing.
func countedNotChecked(ch chan int, stop *atomic.Bool) {
	var polls atomic.Int64
	for !stop.Load() {
		select {
		case <-ch:
		default: // want `channel-driven spin:`
			polls.Add(1)
		}
	}
}

func countedNotCheckedFunc(ch chan int, stop *int32) {
	var polls int64
	for atomic.LoadInt32(stop) == 0 {
		select {
		case <-ch:
		default: // want `channel-driven spin:`
			atomic.AddInt64(&polls, 1)
		}
	}
}

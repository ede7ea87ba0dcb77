// Package intests has a pattern in a test file and another outside.
package intests

func poll(c chan int) {
	for {
		select {
		case <-c:
			return
		default: // want `channel-driven spin`
			_ = 0
		}
	}
}

package a

import "time"

// The channel-driven spin: nothing to do but wait for done.
func spin() {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default: // want `channel-driven spin: the select's default lets each iteration of this loop finish without blocking`
				// do nothing, just spin
			}
		}
	}()
	close(done)
}

// Its repair: the select blocks, a timer case does the periodic work.
func repaired(done chan struct{}, check func()) {
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
				check()
			}
		}
	}()
}

package intests

// A CPU hog, on purpose, as the runtime's scheduler tests build them.
func testHog() {
	stop := make(chan bool)
	go func() {
		for {
			select {
			case <-stop:
				return
			default: // want `channel-driven spin`
			}
		}
	}()
	close(stop)
}

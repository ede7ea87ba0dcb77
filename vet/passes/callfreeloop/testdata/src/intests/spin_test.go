package intests

var ready bool

// A busy-wait in a test: racy, but reported only with -callfreeloop.tests.
func testWait() {
	go func() { ready = true }()
	for !ready { // want `call-free busy-wait`
	}
}

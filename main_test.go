package steal

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's test run if any goroutine outlives it: every
// pool a test starts must be closed and every worker, spare and helper
// goroutine must have exited. The one pool nobody closes is Default(),
// shared by the whole program by design; it is closed here after the tests,
// so a leak check still sees its workers exit.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(closeDefaultAfter{m})
}

type closeDefaultAfter struct{ m *testing.M }

func (c closeDefaultAfter) Run() int {
	code := c.m.Run()
	if defaultPool != nil {
		defaultPool.shared = false // its Close refuses otherwise (ErrDefaultPool)
		defaultPool.Close()
	}
	return code
}

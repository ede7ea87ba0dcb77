package node

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: Serve
// must not leave any, not even the writer of its reports.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

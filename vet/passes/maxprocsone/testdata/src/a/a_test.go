package a

import (
	"runtime"
	"testing"
)

// Tests pin GOMAXPROCS on purpose and do not ship: not reported.
func TestOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.GOMAXPROCS(1)
}

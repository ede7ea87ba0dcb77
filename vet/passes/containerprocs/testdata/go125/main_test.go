package main

import (
	"runtime"
	"testing"
)

// Not reported: tests do not ship.
func TestAllCPUs(t *testing.T) {
	runtime.GOMAXPROCS(runtime.NumCPU())
}

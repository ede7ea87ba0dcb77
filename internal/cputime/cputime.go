// Package cputime reads the CPU time the running process has used, for the
// project's tests that bound work by the CPU it takes rather than by the
// clock, which a loaded machine stretches.
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Process is the CPU time (user + system) this process has used so far. It
// fails tb if the operating system will not say.
func Process(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

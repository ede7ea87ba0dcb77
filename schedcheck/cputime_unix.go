//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package schedcheck

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time, user and system, that all the process's threads
// have used: getrusage(RUSAGE_SELF).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Package netns wraps the system calls that set up a thread, as
// libraries such as github.com/vishvananda/netns do.
package netns

import "syscall"

const sysSetns = 308 // setns(2) on linux/amd64

// Set moves the calling thread to another network namespace.
func Set(fd int) error { // want Set:"setsUpThread"
	_, _, errno := syscall.RawSyscall(sysSetns, uintptr(fd), 0x40000000, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// Enter is a wrapper of a wrapper.
func Enter(fd int) error { return Set(fd) } // want Enter:"setsUpThread"

// Name calls no system call.
func Name(fd int) string { return "ns" }

// Later calls the system only in a function literal it returns.
func Later(fd int) func() error {
	return func() error { return Set(fd) }
}

// Background calls the system on another goroutine.
func Background(fd int) {
	go Set(fd)
}

package main

import "syscall"

// childAttr makes a worker process get SIGTERM if this process dies
// without stopping it (killed with SIGKILL, say), so none is left behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

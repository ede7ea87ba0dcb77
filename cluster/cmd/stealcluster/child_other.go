//go:build !linux

package main

import "syscall"

// childAttr: outside Linux there is no parent-death signal; children are
// stopped by cluster up on the way out.
func childAttr() *syscall.SysProcAttr { return nil }

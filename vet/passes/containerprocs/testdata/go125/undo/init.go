package main

import rt "runtime"

// A second GOMAXPROCS call in the same init: the NumCPU one undoes the
// first, so the fix restores the default instead of deleting.
func init() {
	rt.GOMAXPROCS(1)
	rt.GOMAXPROCS(rt.NumCPU()) // want `since Go 1.25`
}

// Package main calls GOMAXPROCS through a dot import, and nothing else
// in the file uses it: deleting the call would leave the import unused,
// which the driver does not remove, and replacing it needs a qualifier.
// Reported without a fix.
package main

import . "runtime"

func main() {
	GOMAXPROCS(NumCPU()) // want `since Go 1.25`
}

//go:build go1.24

// This file's language version is go1.24, which lacks
// runtime.SetDefaultGOMAXPROCS: reported, but without a fix.
package lib

import "runtime"

func RestoreOld() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `since Go 1.25`
}

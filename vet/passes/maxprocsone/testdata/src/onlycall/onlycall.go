// Package onlycall imports runtime for nothing else: the fix leaves
// the import unused, and the driver removes it.
package onlycall

import "runtime"

func init() {
	runtime.GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
}

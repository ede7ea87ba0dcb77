// Package dotimport calls GOMAXPROCS through a dot import. The driver
// does not remove an unused dot import, so deleting the file's only
// use of it would not compile: reported without a fix.
package dotimport

import . "runtime"

func init() {
	GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
}

package dotimport

import . "runtime"

// The dot import is used elsewhere in this file: the fix deletes.
func init() {
	GOMAXPROCS(1) // want `GOMAXPROCS\(1\) surprise`
}

func cpus() int { return NumCPU() }

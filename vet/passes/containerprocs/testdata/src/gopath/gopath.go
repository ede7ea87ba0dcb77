// Package gopath has no module, hence no Go version.
package gopath

import "runtime"

func init() {
	runtime.GOMAXPROCS(runtime.NumCPU()) // want `the call repeats the pre-1.25 default`
}

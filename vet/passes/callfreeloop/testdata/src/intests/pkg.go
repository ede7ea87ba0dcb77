// Package intests has a pattern in a test file and another outside.
package intests

var flag bool

func wait() {
	for !flag { // want `call-free busy-wait`
	}
}

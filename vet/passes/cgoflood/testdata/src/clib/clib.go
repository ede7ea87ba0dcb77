// Package clib wraps a C function; package a starts goroutines on its
// wrappers, which it knows call C only through the callsCgo fact.
package clib

/*
static long long_running_c_function(void *p, int n) { (void)p; return n; }
*/
import "C"

import "unsafe"

// Compress calls C directly.
func Compress(data []byte) int { // want Compress:"callsCgo"
	return int(C.long_running_c_function(unsafe.Pointer(&data[0]), C.int(len(data))))
}

// CompressAll calls C through Compress.
func CompressAll(chunks [][]byte) { // want CompressAll:"callsCgo"
	for _, c := range chunks {
		Compress(c)
	}
}

// Name only converts strings, which is not a long C call.
func Name(s string) string {
	cs := C.CString(s)
	return C.GoString(cs)
}

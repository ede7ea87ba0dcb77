//go:build (amd64 || 386) && !race

package deque

import (
	"sync/atomic"
	"unsafe"
)

// publish stores v into the index at p that publishes the slots its owner
// just wrote: a Deque's bottom after Push, a Ring's tail after Put and
// PutBatch. It needs release order only (the slot stores before it must
// be seen first), which is what the Go runtime's runqput uses for its
// run queue's tail (atomic.StoreRel in proc.go); no proof in Deque or Ring
// needs a publishing store to be ordered before a later load, the one
// order that costs a fence. Pop's store to bottom, which does need it,
// stays atomic.
//
// sync/atomic offers only sequentially consistent stores, which on x86 are
// a locked exchange that waits for every store before it to drain: in a
// walk of a tree with a Group per node, that exchange was 5% of the time
// (BenchmarkUTS/group). x86 keeps stores in program order (TSO), and the
// compiler emits a function's stores in program order, so a plain store is
// a release store here, as StoreRel is on amd64. Thieves still load the
// index atomically.
//
// Elsewhere (publish_other.go), and under the race detector, whose checks
// need to see the store as atomic, it is an ordinary atomic store.
func publish(p *atomic.Uint32, v uint32) { *(*uint32)(unsafe.Pointer(p)) = v }

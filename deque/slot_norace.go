//go:build !race

package deque

import (
	"sync/atomic"
	"unsafe"
)

// slot holds one item of a Deque's buffer or a Ring. Loads are atomic;
// stores are plain, as the Go runtime stores a goroutine into its run
// queue (runqput in proc.go) before it publishes the queue's tail.
//
// An atomic store is a locked exchange on amd64, several nanoseconds, and
// a push and a pop each stored a slot: now they pay only for the one
// atomic that publishes the change (bottom, or a Ring's tail), which stays
// atomic and sequentially consistent, as every proof in Deque needs.
//
// Why a plain store is enough. No goroutine learns anything from a slot's
// own store: a thief reads a slot only after it has read the bottom (or
// tail) that the owner stored after writing it, and that atomic pair
// orders the slot's write before the thief's read, as with any plain
// write published by an atomic store. The only reads that race with a
// slot's store are those of a thief whose snapshot of top is stale: the
// owner has wrapped around and is reusing the slot (Push), or is clearing
// it (Pop, sweep). Such a thief then fails its CompareAndSwap on top, which
// has moved past its snapshot, and drops what it read. A racy read of a
// machine word observes some write to it, never a torn value (the Go
// memory model), and every pointer store goes through the collector's
// write barrier, plain or not, so the dropped value is harmless.
//
// Under the race detector (slot_race.go) stores are atomic, so that it
// reports real races and stays quiet about these.
type slot[T any] struct{ p *T }

// Load returns the slot's item. Any goroutine.
func (s *slot[T]) Load() *T {
	return (*T)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&s.p))))
}

// Store sets the slot's item. Its owner only, before publishing it.
func (s *slot[T]) Store(x *T) { s.p = x }

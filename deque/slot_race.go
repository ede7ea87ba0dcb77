//go:build race

package deque

import "sync/atomic"

// slot: see slot_norace.go. Atomic under the race detector.
type slot[T any] struct{ p atomic.Pointer[T] }

func (s *slot[T]) Load() *T   { return s.p.Load() }
func (s *slot[T]) Store(x *T) { s.p.Store(x) }

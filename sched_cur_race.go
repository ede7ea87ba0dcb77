//go:build race

package steal

import "sync/atomic"

// curSlot: see cur_norace.go. Atomic under the race detector.
type curSlot struct{ p atomic.Pointer[Worker] }

func (s *curSlot) load() *Worker   { return s.p.Load() }
func (s *curSlot) store(w *Worker) { s.p.Store(w) }

//go:build race

package steal

import "sync/atomic"

// liveCounter: see live_norace.go. Atomic under the race detector.
type liveCounter struct{ n atomic.Uintptr }

func (c *liveCounter) inc()       { c.n.Add(1) }
func (c *liveCounter) load() uint { return uint(c.n.Load()) }

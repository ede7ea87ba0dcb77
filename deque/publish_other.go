//go:build !(amd64 || 386) || race

package deque

import "sync/atomic"

// publish stores v into a publishing index: see publish_tso.go. Weakly
// ordered machines (arm64, and the others) need a release store, which
// sync/atomic offers only as part of a sequentially consistent one.
func publish(p *atomic.Uint32, v uint32) { p.Store(v) }

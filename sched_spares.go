package steal

import (
	"slices"
	"sync"
)

// spareSet holds the spare workers of Worker.Block. A spare is a worker like
// the pool's own, with its own runnext, ring and deque, listed among the
// victims while it runs so that thieves and the parking protocol see its
// queues. It retires when its quit channel is closed and its own queues are
// empty. Spares are recycled, so their counters add up in Stats.
type spareSet struct {
	mu      sync.Mutex
	free    []*core // retired spares, ready for reuse
	all     []*core // every spare ever made, for Stats
	running int
}

// start starts a spare. first, if not nil, is the first task the spare
// runs (see lend). There is no cap: every spare stands in for a goroutine
// that is blocked (in Block, or waiting after lending a task), and a cap
// reached would turn a wait into one that may never end.
func (s *spareSet) start(p *Pool, first *task) *core {
	s.mu.Lock()
	s.running++
	var c *core
	if n := len(s.free); n > 0 {
		c, s.free = s.free[n-1], s.free[:n-1]
	} else {
		c = newCore(p, len(p.workers)+len(s.all))
		s.all = append(s.all, c)
	}
	c.quit = make(chan struct{})
	if first != nil {
		c.runnext.Store(first)
	}
	p.blocked.Add(1) // the pool is not done while a spare runs
	victims := append(slices.Clone(*p.victims.Load()), c)
	p.victims.Store(&victims)
	p.nworkers.Store(int64(len(victims)))
	s.mu.Unlock()
	go c.loop()
	return c
}

// retireSpare is called by a spare's goroutine as it exits: it leaves the
// victims, goes back to the free list, and, as a parking worker would,
// ends the pool if that was the last thing keeping it from being done.
func (p *Pool) retireSpare(c *core) {
	s := &p.spares
	s.mu.Lock()
	victims := slices.DeleteFunc(slices.Clone(*p.victims.Load()), func(v *core) bool { return v == c })
	p.victims.Store(&victims)
	p.nworkers.Store(int64(len(victims)))
	c.owner.Store(0)
	s.free = append(s.free, c)
	s.running--
	s.mu.Unlock()
	p.idleMu.Lock()
	p.blocked.Add(-1)
	p.doneIfQuiescent()
	p.idleMu.Unlock()
}

// retiring reports whether c is a spare whose Block has returned.
func (c *core) retiring() bool {
	if c.quit == nil {
		return false
	}
	select {
	case <-c.quit:
		return true
	default:
		return false
	}
}

// spareStats returns every spare's counters, for Stats.
func (p *Pool) spareStats() []WorkerStats {
	s := &p.spares
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]WorkerStats, len(s.all))
	for i, c := range s.all {
		out[i] = c.snapshot()
	}
	return out
}

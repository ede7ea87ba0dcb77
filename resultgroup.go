package steal

import (
	"context"
	"slices"
)

// ResultGroup is a Group whose children return a value: Wait returns the
// values in the order the children were added, whichever finished first.
// Everything else (contexts, the first error cancelling the rest, skipped
// children, panics, limits, reuse after Wait, who may call what) is as for
// Group; make one with NewResultGroup inside a task and PoolResultGroup
// outside, as NewGroup and Pool.Group.
type ResultGroup[T any] struct {
	g *Group
	// The round's values, and those the last Wait returned; touched only by
	// the owner task, or under g.sh.mu for a group made with PoolResultGroup.
	vals resultSlots[T]
	last []T
}

// NewResultGroup returns a result group for use by the task that received
// w; see NewGroup.
//
// Cost: NewGroup's, plus per child two small allocations (the child's
// record for its value and its function) and, amortised, the slot its
// value is kept in until Wait.
func NewResultGroup[T any](w *Worker) *ResultGroup[T] {
	if w == nil {
		nilWorker("NewResultGroup")
	}
	return &ResultGroup[T]{g: NewGroup(w)}
}

// PoolResultGroup returns a result group for use from any goroutine,
// inside or outside the pool; see Pool.Group. It is a function, not a
// method of Pool, only because Go methods cannot have type parameters.
func PoolResultGroup[T any](ctx context.Context, p *Pool) *ResultGroup[T] {
	p.made("PoolResultGroup")
	return &ResultGroup[T]{g: p.Group(ctx)}
}

// Go adds fn as a child, as Group.Go does. Its value goes to the place of
// this call among the group's Go calls; if fn returns an error, or panics,
// or is skipped, that place holds the zero value.
func (r *ResultGroup[T]) Go(fn func(w *Worker) (T, error)) {
	if fn == nil {
		nilFunc("ResultGroup.Go")
	}
	c := &resultChild[T]{r: r, fn: fn}
	r.g.add(c.run, c, false)
}

// TryGo adds fn as a child only if Group.TryGo would, and reports whether
// it did; a child not added takes no place in the results.
func (r *ResultGroup[T]) TryGo(fn func(w *Worker) (T, error)) bool {
	if fn == nil {
		nilFunc("ResultGroup.TryGo")
	}
	c := &resultChild[T]{r: r, fn: fn}
	return r.g.add(c.run, c, true)
}

// SetLimit is Group.SetLimit.
func (r *ResultGroup[T]) SetLimit(n int) { r.g.SetLimit(n) }

// Context is Group.Context.
func (r *ResultGroup[T]) Context() context.Context { return r.g.Context() }

// Skipped is Group.Skipped.
func (r *ResultGroup[T]) Skipped() int { return r.g.Skipped() }

// Wait waits as Group.Wait does and returns the values of the round's
// children in the order they were added, and Group.Wait's error. The
// values are all there even if err != nil: a child that failed, panicked
// or was skipped has the zero value, and the others theirs. The slice the
// first Wait of a round returns is the group's own, not a copy, to save
// copying the values; Wait called again before the next Go returns a copy
// of that slice as it is then, changes the caller made included, and the
// same error. The next Go starts a new round with no values.
func (r *ResultGroup[T]) Wait() ([]T, error) {
	g := r.g
	g.made()
	if g.owner != nil {
		g.ownerCore()
		fresh := !g.ended
		err := g.Wait()
		return r.take(fresh), err
	}
	for { // Group.Wait for a Pool.Group, taking the values with the round
		g.awaitShared()
		g.sh.mu.Lock()
		if g.latch.open() {
			fresh := !g.ended
			err := g.endRound()
			vals := r.take(fresh)
			g.sh.mu.Unlock()
			return vals, err
		}
		g.sh.mu.Unlock()
	}
}

// take returns the round's values: those just collected if the round
// ended now, else a copy of those handed out when it did.
func (r *ResultGroup[T]) take(fresh bool) []T {
	if fresh {
		r.last = r.vals.take()
		return r.last
	}
	return slices.Clone(r.last)
}

// resultChild is one child of a ResultGroup: its function and the place
// its value goes.
type resultChild[T any] struct {
	r    *ResultGroup[T]
	fn   func(*Worker) (T, error)
	slot *T
}

func (c *resultChild[T]) reserve() {
	if c.r.vals.n == 0 {
		c.r.last = nil // a new round: let the last one's values go
	}
	c.slot = c.r.vals.next()
}

func (c *resultChild[T]) release() { c.r.vals.drop() }

func (c *resultChild[T]) run(w *Worker) error {
	v, err := c.fn(w)
	if err == nil {
		*c.slot = v
	}
	return err
}

// resultSlots holds a round's values in blocks that never move, so that a
// child can write its value while Go appends more places.
type resultSlots[T any] struct {
	blocks [][]T
	n      int
}

// next returns the place for one more value.
func (s *resultSlots[T]) next() *T {
	k := len(s.blocks) - 1
	if k < 0 || len(s.blocks[k]) == cap(s.blocks[k]) {
		size := 16 << min(len(s.blocks), 12)
		s.blocks = append(s.blocks, make([]T, 0, size))
		k++
	}
	b := s.blocks[k][:len(s.blocks[k])+1]
	s.blocks[k] = b
	s.n++
	return &b[len(b)-1]
}

// drop gives the last place back.
func (s *resultSlots[T]) drop() {
	k := len(s.blocks) - 1
	s.blocks[k] = s.blocks[k][:len(s.blocks[k])-1]
	s.n--
}

// take returns the values in order and empties s.
func (s *resultSlots[T]) take() []T {
	var vals []T
	switch len(s.blocks) {
	case 0:
		vals = []T{}
	case 1:
		vals = s.blocks[0]
	default:
		vals = make([]T, 0, s.n)
		for _, b := range s.blocks {
			vals = append(vals, b...)
		}
	}
	s.blocks, s.n = nil, 0
	return vals
}

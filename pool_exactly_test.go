package steal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chaosTasks is how many tasks the exactly-once tests run in all, spread
// over their subtests (per -cpu value).
func chaosTasks() int {
	if testing.Short() {
		return 200_000
	}
	return 3_000_000
}

// chaos is one exactly-once run: every id in [0, n) must be marked by
// exactly one task. A task owns a range [lo, hi): it may first yield (re-spawn
// itself as its continuation), then marks lo and hands the rest of the range
// to 1-4 children made with Spawn (or, now and then, Submit from inside),
// sometimes calling runtime.Gosched or sleeping.
type chaos struct {
	p     *Pool
	seen  []atomic.Uint32
	ran   atomic.Int64 // task bodies run, continuations included
	spawn atomic.Int64 // tasks made from inside tasks (Spawn + inner Submit)
	bad   atomic.Value // first error seen inside a task
}

func newChaos(p *Pool, n int) *chaos {
	return &chaos{p: p, seen: make([]atomic.Uint32, n)}
}

func (c *chaos) task(lo, hi, yields int) func(*Worker) {
	return func(w *Worker) { c.run(w, lo, hi, yields) }
}

func (c *chaos) run(w *Worker, lo, hi, yields int) {
	c.ran.Add(1)
	r := rand.Uint64()
	switch {
	case r%64 == 0:
		runtime.Gosched()
	case r%50_000 == 1:
		time.Sleep(time.Duration(r>>40%200) * time.Microsecond)
	}
	if yields > 0 { // yield: come back later as a fresh task
		c.spawn.Add(1)
		w.Spawn(c.task(lo, hi, yields-1))
		return
	}
	if c.seen[lo].Add(1) != 1 {
		c.bad.CompareAndSwap(nil, fmt.Errorf("id %d ran twice", lo))
	}
	lo++
	if lo >= hi {
		return
	}
	kids := 1 + int(r>>8%4)
	for k := 0; k < kids && lo < hi; k++ {
		size := (hi - lo + kids - k - 1) / (kids - k)
		if k < kids-1 && r>>(12+k)&1 == 1 { // lopsided trees too
			size = 1 + int(r>>20%uint64(size))
		}
		y := 0
		if r>>30%16 == 0 {
			y = 1 + int(r>>34%3)
		}
		t := c.task(lo, lo+size, y)
		c.spawn.Add(1)
		// Now and then Submit from inside; never wait for backlog room
		// from a task (that could wait for its own worker): Spawn instead.
		if r>>36%256 != 0 || c.p.TrySubmit(t) != nil {
			w.Spawn(t)
		}
		lo += size
	}
}

// check asserts every id ran exactly once and Stats agree.
func (c *chaos) check(t *testing.T, skip func(id int) bool) {
	t.Helper()
	if err, _ := c.bad.Load().(error); err != nil {
		t.Fatal(err)
	}
	missing, twice := 0, 0
	for i := range c.seen {
		want := uint32(1)
		if skip != nil && skip(i) {
			want = 0
		}
		switch got := c.seen[i].Load(); {
		case got < want:
			missing++
		case got > want:
			twice++
		}
	}
	if missing > 0 || twice > 0 {
		t.Fatalf("of %d ids: %d never ran, %d ran too often", len(c.seen), missing, twice)
	}
	s := c.p.Stats()
	if got, want := s.Total.Ran, uint64(c.ran.Load()); got != want {
		t.Errorf("Stats.Total.Ran = %d, tasks run = %d", got, want)
	}
	if s.Inject != 0 || s.Total.RingLen != 0 || s.Total.Runnext {
		t.Errorf("pool not drained after Close: %s", c.p.SchedTrace(0))
	}
	if s.Total.StolenIn != s.Total.StolenOut {
		t.Errorf("StolenIn %d != StolenOut %d", s.Total.StolenIn, s.Total.StolenOut)
	}
}

// TestExactlyOnceChaos runs millions of tasks in random spawn trees with
// random yields, Goscheds and sleeps, on 1-8 workers, submitted from four
// outside goroutines with Submit, TrySubmit and Go (and a backlog cap on
// some pools), then Closes while the trees are still growing: every task
// runs exactly once and the pool drains.
func TestExactlyOnceChaos(t *testing.T) {
	perPool := chaosTasks() / 8
	const rootSize = 2048
	for workers := 1; workers <= 8; workers++ {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			opts := []Option{WithWorkers(workers)}
			if workers%2 == 1 {
				opts = append(opts, WithMaxQueued(16))
			}
			p := New(opts...)
			c := newChaos(p, perPool)
			var roots atomic.Int64
			var wg sync.WaitGroup
			const submitters = 4
			for s := 0; s < submitters; s++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for lo := s * rootSize; lo < perPool; lo += submitters * rootSize {
						hi := min(lo+rootSize, perPool)
						fn := c.task(lo, hi, int(roots.Add(1)%2))
						var err error
						switch lo / rootSize % 3 {
						case 0:
							err = p.Submit(context.Background(), fn)
						case 1:
							for err = p.TrySubmit(fn); errors.Is(err, ErrBacklogFull); err = p.TrySubmit(fn) {
								runtime.Gosched()
							}
						case 2:
							err = p.Go(func() { // no *Worker: a flat task marks its whole range
								c.ran.Add(1)
								for id := lo; id < hi; id++ {
									if c.seen[id].Add(1) != 1 {
										c.bad.CompareAndSwap(nil, fmt.Errorf("id %d ran twice", id))
									}
								}
							})
						}
						if err != nil {
							c.bad.CompareAndSwap(nil, fmt.Errorf("submit: %w", err))
						}
					}
				}()
			}
			wg.Wait()
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			c.check(t, nil)
			if got := p.Stats().Total.Spawned; got > uint64(c.spawn.Load()) {
				t.Errorf("Stats.Total.Spawned = %d > %d spawns made", got, c.spawn.Load())
			}
		})
	}
}

// TestExactlyOnceSubmitRacesClose submits trees from several goroutines
// while another goroutine Closes the pool: a Submit that returned nil runs
// exactly once (with all its spawns, made after Close began), one that
// returned ErrClosed never runs.
func TestExactlyOnceSubmitRacesClose(t *testing.T) {
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	const rootSize, rootsPer, submitters = 64, 32, 4
	n := rootSize * rootsPer * submitters
	for round := 0; round < rounds; round++ {
		p := New(WithWorkers(1 + round%8))
		c := newChaos(p, n)
		rejected := make([]atomic.Bool, n/rootSize)
		var wg sync.WaitGroup
		for s := 0; s < submitters; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := s; r < n/rootSize; r += submitters {
					err := p.Submit(context.Background(), c.task(r*rootSize, (r+1)*rootSize, r%2))
					switch {
					case errors.Is(err, ErrClosed):
						rejected[r].Store(true)
					case err != nil:
						c.bad.CompareAndSwap(nil, err)
					}
				}
			}()
		}
		time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
		if err := p.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		wg.Wait()
		c.check(t, func(id int) bool { return rejected[id/rootSize].Load() })
	}
}

package steal

import (
	"errors"
	"iter"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// A body that calls runtime.Goexit in For, ForRange, Map, MapErr or
// MapSeq must not let the call, or the Run around it, end while parts of
// the range it offered to thieves are still running: Goexit is reported
// like a panic, and a panic waits for them.

const goexitN = 64

// goexitProbe is a loop body: one call, on the calling task, calls Goexit
// once a thief is inside a call of its own; the others count themselves.
type goexitProbe struct {
	t        *testing.T
	exited   atomic.Bool
	inFlight atomic.Int64 // calls started and not finished
	done     atomic.Int64 // calls finished
	ran      [goexitN]atomic.Int32
}

// exit waits until a call is running elsewhere, then calls Goexit.
func (g *goexitProbe) exit() {
	if !waitUntil(5*time.Second, func() bool { return g.inFlight.Load() > 0 }) {
		g.t.Error("no call started on a thief within 5 s")
	}
	g.exited.Store(true)
	runtime.Goexit()
}

// call is any other call. A slow one waits for the Goexit, so that it is
// still running when the Goexit unwinds the calling task, then takes a
// millisecond more.
func (g *goexitProbe) call(i int, slow bool) {
	g.inFlight.Add(1)
	if slow {
		waitUntil(5*time.Second, g.exited.Load)
		time.Sleep(time.Millisecond)
	}
	g.ran[i].Add(1)
	g.done.Add(1)
	g.inFlight.Add(-1)
}

// body is the body of the For-like cases: index 0, which the calling task
// runs first, calls Goexit.
func (g *goexitProbe) body(_ *Worker, i int) {
	if i == 0 {
		g.exit()
	}
	g.call(i, true)
}

// check is called as soon as the entry returned err. It fails if a call
// was still running then, or finished later, or ran twice. With complete,
// it also fails if a call was lost: every index after exit, the one that
// called Goexit, must have run, except, with ownStops, those of the
// calling task's own part, which the Goexit ends: indices exit+1 up to
// where the first part it offered begins.
func (g *goexitProbe) check(err error, complete bool, exit int, ownStops bool) {
	t := g.t
	t.Helper()
	inFlight, done := g.inFlight.Load(), g.done.Load()
	time.Sleep(20 * time.Millisecond)
	if !errors.Is(err, ErrGoexit) {
		t.Errorf("returned %v, want an error wrapping ErrGoexit", err)
	}
	if later := g.done.Load(); inFlight != 0 || later != done {
		t.Errorf("returned with %d calls still running: %d calls done at return, %d 20ms later", inFlight, done, later)
	}
	k := exit + 1 // where the offered parts begin
	for ownStops && k < goexitN && g.ran[k].Load() == 0 {
		k++
	}
	for i := range goexitN {
		n := g.ran[i].Load()
		switch {
		case n > 1:
			t.Errorf("index %d ran %d times", i, n)
		case i == exit && n != 0:
			t.Errorf("index %d, which called Goexit, finished", i)
		case complete && i != exit && (i < exit || i >= k) && n != 1:
			t.Errorf("index %d never ran; the offered parts were [%d, %d)", i, k, goexitN)
		}
	}
}

func TestGoexitWaitsForOfferedParts(t *testing.T) {
	in := make([]int, goexitN)
	for i := range in {
		in[i] = i
	}
	cases := []struct {
		name     string
		complete bool // no cancellation: every offered call runs
		run      func(p *Pool, g *goexitProbe) error
	}{
		{"For", true, func(p *Pool, g *goexitProbe) error {
			return p.Run(func(w *Worker) { For(w, 0, goexitN, g.body) })
		}},
		{"ForRange", true, func(p *Pool, g *goexitProbe) error {
			return p.Run(func(w *Worker) {
				ForRange(w, 0, goexitN, func(w *Worker, lo, hi int) {
					for i := lo; i < hi; i++ {
						g.body(w, i)
					}
				})
			})
		}},
		{"Pool.For", true, func(p *Pool, g *goexitProbe) error {
			return p.For(0, goexitN, g.body)
		}},
		{"Map", true, func(p *Pool, g *goexitProbe) error {
			return p.Run(func(w *Worker) {
				Map(w, in, func(w *Worker, x int) int { g.body(w, x); return x })
			})
		}},
		{"PoolMap", true, func(p *Pool, g *goexitProbe) error {
			_, err := PoolMap(nil, p, in, func(w *Worker, x int) int { g.body(w, x); return x })
			return err
		}},
		{"MapErr", false, func(p *Pool, g *goexitProbe) error {
			return p.Run(func(w *Worker) {
				MapErr(w, in, func(w *Worker, x int) (int, error) { g.body(w, x); return x, nil })
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(2))
			defer p.Close()
			g := &goexitProbe{t: t}
			var err error
			within(t, 10*time.Second, tc.name, func() { err = tc.run(p, g) })
			g.check(err, tc.complete, 0, true)
		})
	}
}

// TestGoexitInMapSeqJoin: MapSeq's calling task calls Goexit in a run it
// offered, took back and ran while joining, with an earlier run still on
// a thief. seq waits after element 0 until a thief has taken its run, so
// the next run, holding element 1, is offered and stays queued (the one
// thief is busy); the calling task makes the later calls itself, and at
// the end takes that run back, and calls Goexit at element 1. In the
// seqExits cases, seq itself calls Goexit once it has yielded element 2,
// and the run holding element 1 calls Goexit again while the first
// Goexit's unwinding joins it: the run on the thief must still be waited
// for.
func TestGoexitInMapSeqJoin(t *testing.T) {
	for _, tc := range []struct {
		name              string
		withErr, seqExits bool
	}{
		{"MapSeq", false, false},
		{"MapSeqErr", true, false},
		{"MapSeq/seqExits", false, true},
		{"MapSeqErr/seqExits", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(2))
			defer p.Close()
			g := &goexitProbe{t: t}
			var owner atomic.Int64
			seq := iter.Seq[int](func(yield func(int) bool) {
				owner.Store(goid())
				for i := range goexitN {
					if !yield(i) {
						return
					}
					if i == 0 && !waitUntil(5*time.Second, func() bool { return g.inFlight.Load() > 0 }) {
						t.Error("no thief took the first run within 5 s")
					}
					if i == 2 && tc.seqExits {
						runtime.Goexit()
					}
				}
			})
			f := func(w *Worker, x int) int {
				onOwner := goid() == owner.Load()
				if x == 1 {
					if !onOwner {
						t.Error("element 1 ran on a thief: its run was not left queued")
					}
					g.exit()
				}
				g.call(x, !onOwner)
				return x
			}
			var err error
			within(t, 10*time.Second, tc.name, func() {
				err = p.Run(func(w *Worker) {
					if tc.withErr {
						MapSeqErr(w, seq, func(w *Worker, x int) (int, error) { return f(w, x), nil })
					} else {
						MapSeq(w, seq, f)
					}
				})
			})
			g.check(err, !tc.withErr && !tc.seqExits, 1, false)
		})
	}
}

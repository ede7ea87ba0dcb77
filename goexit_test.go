package steal

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestGoexitInPlainTask: a task that calls runtime.Goexit (what t.FailNow
// does) is reported by Close, and the pool keeps its one worker: later
// tasks run and Close returns.
func TestGoexitInPlainTask(t *testing.T) {
	p := New(WithWorkers(1))
	p.Go(func() { runtime.Goexit() })
	ran := make(chan struct{})
	p.Go(func() { close(ran) })
	waitClosed(t, ran, "task after a Goexit")
	var err error
	within(t, "Close after a Goexit", func() { err = p.Close() })
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Close = %v, want an error wrapping ErrGoexit", err)
	}
}

// TestGoexitInRun: Run of a task that calls Goexit returns an error saying
// so, instead of nil.
func TestGoexitInRun(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var err error
	within(t, "Run of a Goexit task", func() {
		err = p.Run(func(*Worker) { runtime.Goexit() })
	})
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, ErrGoexit) {
		t.Fatalf("Run = %v, want a *PanicError wrapping ErrGoexit", err)
	}
	within(t, "Run after a Goexit", func() {
		if err := p.Run(func(*Worker) {}); err != nil {
			t.Errorf("second Run = %v", err)
		}
	})
}

// TestGoexitInGroupChild: Wait returns the child's Goexit as an error, like
// a panic; the group is cancelled, and the pool goes on.
func TestGoexitInGroupChild(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	g := p.Group(context.Background())
	g.Go(func(*Worker) error { runtime.Goexit(); return nil })
	g.Go(func(*Worker) error { return nil })
	var err error
	within(t, "Wait for a Goexit child", func() { err = g.Wait() })
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Wait = %v, want ErrGoexit", err)
	}
	if g.Context().Err() == nil {
		t.Fatal("group not cancelled by its child's Goexit")
	}
	within(t, "Run after", func() { p.Run(func(*Worker) {}) })
}

// TestGoexitWhileHelping: on one worker, a group child runs on the goroutine
// of the task waiting for it; its Goexit ends that task too. Both are
// reported, and the pool goes on.
func TestGoexitWhileHelping(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	var err error
	afterWait := false
	within(t, "Run whose child calls Goexit", func() {
		err = p.Run(func(w *Worker) {
			g := NewGroup(w)
			g.Go(func(*Worker) error { runtime.Goexit(); return nil })
			g.Wait()
			afterWait = true
		})
	})
	if !errors.Is(err, ErrGoexit) || afterWait {
		t.Fatalf("Run = %v (code after Wait ran: %v), want ErrGoexit", err, afterWait)
	}
	within(t, "Run after", func() { p.Run(func(*Worker) {}) })
}

// TestGoexitInStolenJoinHalf: Join re-raises a thief's Goexit as a
// *PanicError that says so.
func TestGoexitInStolenJoinHalf(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	var recovered any
	within(t, "Join with a Goexit half", func() {
		p.Run(func(w *Worker) {
			defer func() { recovered = recover() }()
			Join(w, func(*Worker) {
				waitUntil(func() bool { return w.c.jobs.Len() == 0 })
			}, func(*Worker) { runtime.Goexit() })
		})
	})
	pe, ok := recovered.(*PanicError)
	if !ok || !errors.Is(pe, ErrGoexit) {
		t.Fatalf("recovered %v, want *PanicError wrapping ErrGoexit", recovered)
	}
	if !strings.Contains(pe.Error(), "Goexit") {
		t.Fatalf("error text %q does not say Goexit", pe.Error())
	}
}

// TestGoexitInBlock: Goexit inside Block's fn ends the task, releases the
// spare, and the pool can still close.
func TestGoexitInBlock(t *testing.T) {
	p := New(WithWorkers(1))
	var err error
	within(t, "Run with Goexit in Block", func() {
		err = p.Run(func(w *Worker) { w.Block(func() { runtime.Goexit() }) })
	})
	if !errors.Is(err, ErrGoexit) {
		t.Fatalf("Run = %v, want ErrGoexit", err)
	}
	within(t, "Close", func() { p.Close() })
}

// stolenPart is a part of a fork (Join's second half, a sub-range of
// For) that a thief runs while the forking task waits for it, helping,
// and runs a task that calls runtime.Goexit. That Goexit ends the forking
// task's goroutine too; the fork must still wait for the part before it
// lets the Goexit unwind the task, or Run returns while the part runs on.
type stolenPart struct {
	t        *testing.T
	p        *Pool
	in, done atomic.Bool // the part started, finished
	exited   atomic.Bool // the helped task is about to call Goexit
}

// first is the forking task's own half: it waits for the thief to be
// inside the part, so that the fork waits for a part a thief holds.
func (s *stolenPart) first(*Worker) {
	if !waitUntil(s.in.Load) {
		s.t.Errorf("no thief took the part within %v", hang)
	}
}

// part forks the task that calls Goexit and leaves it on the thief's
// deque while it waits for that task to start: the forking task, waiting
// for this part, is the one idle worker, and a task the part forked is
// part of what it waits for, so it takes the task and runs it on its own
// goroutine. part then stays running a moment longer than the Goexit.
func (s *stolenPart) part(w *Worker) {
	s.in.Store(true)
	Join(w, func(*Worker) {
		if !waitUntil(s.exited.Load) {
			s.t.Error("the forking task never ran the task that calls Goexit")
		}
		time.Sleep(time.Millisecond)
		s.done.Store(true)
	}, func(*Worker) {
		s.exited.Store(true)
		runtime.Goexit()
	})
}

func TestGoexitWhileHelpingWaitsForStolenPart(t *testing.T) {
	cases := []struct {
		name string
		fork func(s *stolenPart, w *Worker)
	}{
		{"Join", func(s *stolenPart, w *Worker) {
			Join(w, func(w *Worker) { s.first(w) }, func(w *Worker) { s.part(w) })
		}},
		{"Join2", func(s *stolenPart, w *Worker) {
			Join2(w, func(w *Worker, i int) {
				if i == 0 {
					s.first(w)
				} else {
					s.part(w)
				}
			}, 0, 1)
		}},
		{"Fork2", func(s *stolenPart, w *Worker) {
			Fork2(w, func(w *Worker, i int) int {
				if i == 0 {
					s.first(w)
				} else {
					s.part(w)
				}
				return i
			}, 0, 1)
		}},
		{"For", func(s *stolenPart, w *Worker) {
			For(w, 0, 2, func(w *Worker, i int) {
				if i == 0 {
					s.first(w)
				} else {
					s.part(w)
				}
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(2))
			s := &stolenPart{t: t, p: p}
			var err error
			within(t, tc.name, func() {
				err = p.Run(func(w *Worker) { tc.fork(s, w) })
			})
			partDone := s.done.Load()
			if !errors.Is(err, ErrGoexit) {
				t.Errorf("Run = %v, want an error wrapping ErrGoexit", err)
			}
			if !partDone {
				t.Errorf("Run returned while the stolen part was still running")
			}
			// The helped task was the part's, so its Goexit went to Run
			// through the part, not to the pool.
			if err := p.Close(); err != nil {
				t.Errorf("Close = %v, want nil", err)
			}
		})
	}
}

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
	if !waitUntil(func() bool { return g.inFlight.Load() > 0 }) {
		g.t.Errorf("no call started on a thief within %v", hang)
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
		waitUntil(g.exited.Load)
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
			within(t, tc.name, func() { err = tc.run(p, g) })
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
					if i == 0 && !waitUntil(func() bool { return g.inFlight.Load() > 0 }) {
						t.Errorf("no thief took the first run within %v", hang)
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
			within(t, tc.name, func() {
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

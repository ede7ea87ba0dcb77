package steal

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

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
// inside the part, then spawns the task that its wait will run (a task
// spawned inside the pool, which a waiting task runs on its own goroutine;
// a submitted one would go to a spare: see sched_lend.go).
func (s *stolenPart) first(w *Worker) {
	if !waitUntil(5*time.Second, s.in.Load) {
		s.t.Error("no thief took the part within 5 s")
	}
	w.Spawn(func(*Worker) {
		s.exited.Store(true)
		runtime.Goexit()
	})
}

// part stays running until the Goexit has begun, and a moment longer.
func (s *stolenPart) part() {
	s.in.Store(true)
	if !waitUntil(5*time.Second, s.exited.Load) {
		s.t.Error("the forking task never ran the task that calls Goexit")
	}
	time.Sleep(time.Millisecond)
	s.done.Store(true)
}

func TestGoexitWhileHelpingWaitsForStolenPart(t *testing.T) {
	cases := []struct {
		name string
		fork func(s *stolenPart, w *Worker)
	}{
		{"Join", func(s *stolenPart, w *Worker) {
			Join(w, func(w *Worker) { s.first(w) }, func(*Worker) { s.part() })
		}},
		{"Join2", func(s *stolenPart, w *Worker) {
			Join2(w, func(w *Worker, i int) {
				if i == 0 {
					s.first(w)
				} else {
					s.part()
				}
			}, 0, 1)
		}},
		{"Fork2", func(s *stolenPart, w *Worker) {
			Fork2(w, func(w *Worker, i int) int {
				if i == 0 {
					s.first(w)
				} else {
					s.part()
				}
				return i
			}, 0, 1)
		}},
		{"For", func(s *stolenPart, w *Worker) {
			For(w, 0, 2, func(w *Worker, i int) {
				if i == 0 {
					s.first(w)
				} else {
					s.part()
				}
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(2))
			s := &stolenPart{t: t, p: p}
			var err error
			within(t, 10*time.Second, tc.name, func() {
				err = p.Run(func(w *Worker) { tc.fork(s, w) })
			})
			partDone := s.done.Load()
			if !errors.Is(err, ErrGoexit) {
				t.Errorf("Run = %v, want an error wrapping ErrGoexit", err)
			}
			if !partDone {
				t.Errorf("Run returned while the stolen part was still running")
			}
			if err := p.Close(); !errors.Is(err, ErrGoexit) {
				t.Errorf("Close = %v, want the helped task's Goexit", err)
			}
		})
	}
}

package steal

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A task submitted with a context of its own makes the context it sees
// only when something asks for it. Whatever asks, and whenever, the
// context must be the one Submit documents: the submitter's values, and
// cancelled by the pool's Shutdown. Each case reads the context in a
// different place: the task itself, before and after Shutdown began; the
// parts of its Join, Fork2 and For; a child of its NewGroup; a task it
// spawned. Shutdown is given an expired context, so it gives up at once
// and cancels the pool's context, whose cause every reader must see.
func TestOwnContextSeenEverywhereIsCancelledByShutdown(t *testing.T) {
	cases := []struct {
		name string
		// run calls read, from the place under test, with a handle
		// whose Context to check. A part that read runs in is made to
		// run on the other worker: the forker's first part waits until
		// read has begun (a part run where it was forked may run with
		// its forker's handle).
		run func(w *Worker, read func(w *Worker), reading <-chan struct{})
	}{
		{"task", func(w *Worker, read func(*Worker), _ <-chan struct{}) { read(w) }},
		{"stolen Join part", func(w *Worker, read func(*Worker), reading <-chan struct{}) {
			Join(w, func(*Worker) { awaitOrTimeout(reading) }, read)
		}},
		{"stolen Fork2 part", func(w *Worker, read func(*Worker), reading <-chan struct{}) {
			Fork2(w, func(w *Worker, second bool) int {
				if second {
					read(w)
				} else {
					awaitOrTimeout(reading)
				}
				return 0
			}, false, true)
		}},
		{"stolen For body", func(w *Worker, read func(*Worker), reading <-chan struct{}) {
			For(w, 0, 2, func(w *Worker, i int) {
				if i == 1 {
					read(w)
				} else {
					awaitOrTimeout(reading)
				}
			})
		}},
		{"NewGroup child", func(w *Worker, read func(*Worker), _ <-chan struct{}) {
			g := NewGroup(w)
			g.Go(func(w *Worker) error { read(w); return nil })
			g.Wait()
		}},
		{"Spawn", func(w *Worker, read func(*Worker), _ <-chan struct{}) {
			Spawn(w, func(w *Worker) int { read(w); return 0 }).Wait(w)
		}},
	}
	for _, tc := range cases {
		for _, late := range []bool{false, true} {
			name := tc.name
			if late {
				name += ", asked after Shutdown"
			}
			t.Run(name, func(t *testing.T) { checkOwnContextShutdown(t, tc.run, late) })
		}
	}
}

// checkOwnContextShutdown submits a task with a context of its own that
// runs read where run puts it. read takes the handle's context before the
// pool shuts down, or, if late, once the pool's context has ended, and
// reports whether it was cancelled within 10 s, with what cause, and
// whether it carried the submitter's value.
func checkOwnContextShutdown(t *testing.T, run func(w *Worker, read func(*Worker), reading <-chan struct{}), late bool) {
	p := New(WithWorkers(2))
	defer p.Close()
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), taskCtxKey{}, 7))
	defer cancelParent()
	reading := make(chan struct{})
	shut := make(chan struct{})
	type result struct {
		cause error
		value any
	}
	got := make(chan result, 1)
	read := func(w *Worker) {
		close(reading)
		if late {
			<-shut
		}
		ctx := w.Context()
		r := result{value: ctx.Value(taskCtxKey{})}
		select {
		case <-ctx.Done():
			r.cause = context.Cause(ctx)
		case <-time.After(10 * time.Second):
		}
		got <- r
	}
	if err := p.Submit(parent, func(w *Worker) { run(w, read, reading) }); err != nil {
		t.Fatal(err)
	}
	<-reading
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	p.Shutdown(expired)
	<-p.ctx.Done()
	close(shut)
	r := <-got
	if r.value != 7 {
		t.Errorf("the context lacks the submitter's value: got %v", r.value)
	}
	if r.cause == nil {
		t.Fatal("the context was not cancelled by Shutdown")
	}
	if want := context.Cause(p.ctx); !errors.Is(r.cause, want) {
		t.Errorf("cancelled with %v, want the pool's cause %v", r.cause, want)
	}
}

// awaitOrTimeout waits until ch is closed, or 10 s.
func awaitOrTimeout(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
	}
}

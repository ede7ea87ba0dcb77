package steal

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of the task contexts made when first asked for (sched_ctx.go): whoever
// asks, and whenever, a task's context must be the one Worker.Context
// documents, and every worker's ownTasks stack must stay in order.

// A task T2 submitted with another task T1's context (Submit(w.Context(),
// ...), a *taskCtx) spawns a child before asking for its own context. The
// child must see T2's submit context, T1's, "less the cancellation when T2
// returns" (Worker.Context, Spawn), so it is cancelled when T1 returns.
//
// While T2's context is still to be made, w.ctx is its submitter's, T1's
// *taskCtx: spawnCtx once took that for T2's own and handed the child T1's
// base (the pool's context, or T1's submitter's) instead of T1's context.
func TestSpawnFromTaskSubmittedWithATaskContext(t *testing.T) {
	for _, tc := range []struct {
		name   string
		t1ctx  func() (context.Context, context.CancelFunc)
		future bool
	}{
		{"T1 nil, Worker.Spawn", func() (context.Context, context.CancelFunc) { return nil, func() {} }, false},
		{"T1 nil, Spawn future", func() (context.Context, context.CancelFunc) { return nil, func() {} }, true},
		{"T1 own, Worker.Spawn", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, false},
		{"T1 own, Spawn future", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(3))
			defer p.Close()
			ctx0, cancel0 := tc.t1ctx()
			defer cancel0()
			started := make(chan struct{})
			res := make(chan error, 1)
			child := func(w *Worker) {
				ctx := w.Context()
				close(started)
				res <- awaitDone(ctx)
			}
			t2 := func(w *Worker) {
				if tc.future {
					Spawn(w, func(w *Worker) int { child(w); return 0 })
				} else {
					w.Spawn(child)
				}
			}
			t1 := func(w *Worker) {
				if err := p.Submit(w.Context(), t2); err != nil {
					res <- err
					return
				}
				await(started) // keep T1 (and so T2's submit context) alive until the child runs
			}
			if err := p.Submit(ctx0, t1); err != nil {
				t.Fatal(err)
			}
			if err := <-res; !errors.Is(err, context.Canceled) {
				t.Fatalf("the child's context after T1 returned: %v, want cancelled (T2 was submitted with T1's context)", err)
			}
		})
	}
}

// A task that was running when Shutdown gave up, and whose submitter's
// context ends after that, asks for its context only then. Both contexts
// it joins have ended: its context is made cancelled, and reports the
// submitter's cause, as Worker.Context documents. (When the context was
// made at the task's start, it reported the pool's, which ended first;
// telling which ended first later would take the registration with the
// submitter's context that making it lazily saves.)
func TestContextAskedAfterBothEndedHasSubmitterCause(t *testing.T) {
	errSubmitter := errors.New("submitter gave up")
	for _, tc := range []struct {
		name string
		make func() (context.Context, func())
	}{
		{"cancel cause", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(errSubmitter) }
		}},
		{"deadline", func() (context.Context, func()) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			return ctx, func() { <-ctx.Done(); cancel() }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(WithWorkers(1))
			defer p.Close()
			parent, end := tc.make()
			started, proceed := make(chan struct{}), make(chan struct{})
			type result struct{ err, cause error }
			got := make(chan result, 1)
			if err := p.Submit(parent, func(w *Worker) {
				close(started)
				await(proceed)
				ctx := w.Context()
				cause := awaitDone(ctx)
				got <- result{ctx.Err(), cause}
			}); err != nil {
				t.Fatal(err)
			}
			<-started
			if parent.Err() != nil {
				t.Skip("the submitter's context ended before Shutdown: machine too slow")
			}
			expired, cancel := context.WithCancel(context.Background())
			cancel()
			p.Shutdown(expired)
			<-p.ctx.Done()
			if parent.Err() != nil {
				t.Skip("the submitter's context ended before Shutdown gave up: machine too slow")
			}
			// The pool's end reaches the registered task contexts through
			// an AfterFunc, on its own goroutine: let it arrive first.
			if !waitUntil(func() bool {
				for _, c := range p.workers {
					c.owns.mu.Lock()
					pending := c.owns.stop != nil && c.owns.cause == nil
					c.owns.mu.Unlock()
					if pending {
						return false
					}
				}
				return true
			}) {
				t.Fatal("the pool's cancellation never reached the workers")
			}
			end() // the submitter's context ends second
			close(proceed)
			r := <-got
			if r.err != parent.Err() || r.cause != context.Cause(parent) {
				t.Fatalf("Err %v, Cause %v; want the submitter's (%v, %v)",
					r.err, r.cause, parent.Err(), context.Cause(parent))
			}
		})
	}
}

// Worker.Context: "Submit, TrySubmit, PoolSpawn: the context passed (the
// pool's for nil, context.Background() or context.TODO()), ..., and
// cancelled when the task returns". A PoolSpawn with nil or Background
// once ran under the pool's context itself, which lives on.
func TestPoolSpawnNilContextEndsWithTask(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	for _, ctx := range []context.Context{nil, context.Background(), context.WithValue(context.Background(), taskCtxKey{}, 1)} {
		f, err := PoolSpawn(ctx, p, func(w *Worker) context.Context { return w.Context() })
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Wait(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := awaitDone(got); err == errNotCancelled {
			t.Errorf("PoolSpawn(%v): the task's context is live after it returned", ctx)
		}
	}
}

// Worker.Context: "Join, Fork2, For: the forking task's". A stolen part of
// a task submitted without a context of its own once saw the pool's
// context, not the task's, which is cancelled when the task returns: the
// task made its context only when asked, after the fork. It now makes it
// when it forks, so the part and the task see one context.
func TestStolenPartOfBackgroundTaskSeesTaskContext(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	reading := make(chan struct{})
	var partCtx, taskCtx context.Context
	done := make(chan struct{})
	if err := p.Submit(nil, func(w *Worker) {
		defer close(done)
		Join(w, func(*Worker) { await(reading) }, func(w *Worker) {
			close(reading)
			partCtx = w.Context()
		})
		taskCtx = w.Context()
	}); err != nil {
		t.Fatal(err)
	}
	<-done
	if partCtx != taskCtx {
		t.Errorf("the stolen part's context %v is not its task's %v", partCtx, taskCtx)
	}
	if err := awaitDone(partCtx); err == errNotCancelled {
		t.Error("the stolen part's context is live after the forking task returned (the task's own is not)")
	}
}

// The ownTasks stacks are balanced and in order however contexts are made:
// own-context tasks nest on one goroutine (Future.Wait running the child
// beneath, a Join, a NewGroup), each asks for its context at a different
// moment (before, while, after its nested wait; in a defer during a panic
// or Goexit unwinding). Shutdown gives up while the deepest tasks block:
// every context made by then (on any worker, spare included via Block)
// must be cancelled, and so must every context asked for later. At the
// end every stack is empty.
func TestOwnStacksUnderNestingAndShutdown(t *testing.T) {
	p := New(WithWorkers(2))
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), taskCtxKey{}, "v"))
	defer cancelParent()
	// The blocked leaves wait for shut with no bound of their own: a leaf
	// that gave up waiting would end its tasks, and so cancel the contexts
	// whose cancellation by Shutdown the checks below wait for.
	shut := make(chan struct{})
	unblock := sync.OnceFunc(func() { close(shut) })
	defer unblock() // a failed test still lets them go
	var blocked atomic.Int32
	var mu sync.Mutex
	var made []context.Context // every context a task made, in any way
	note := func(ctx context.Context) {
		mu.Lock()
		made = append(made, ctx)
		mu.Unlock()
	}
	var bad atomic.Int32
	check := func(ctx context.Context) {
		if ctx.Value(taskCtxKey{}) != "v" {
			bad.Add(1)
		}
	}
	var node func(w *Worker, depth, kind int)
	node = func(w *Worker, depth, kind int) {
		if depth == 0 {
			if blocked.Add(1) <= 2 {
				w.Block(func() { <-shut })
			}
			ctx := w.Context()
			check(ctx)
			note(ctx)
			return
		}
		switch kind % 5 {
		case 0: // ask first, then a future waited for beneath
			ctx := w.Context()
			note(ctx)
			f := Spawn(w, func(w *Worker) int { node(w, depth-1, kind+1); return 0 })
			f.Wait(w)
		case 1: // a future waited for beneath, then ask
			f := Spawn(w, func(w *Worker) int { node(w, depth-1, kind+2); return 0 })
			f.Wait(w)
			note(w.Context())
		case 2: // Join (makes it), parts nest
			Join(w, func(w *Worker) { node(w, depth-1, kind+1) }, func(w *Worker) { node(w, depth-1, kind+3) })
		case 3: // NewGroup
			g := NewGroup(w)
			g.Go(func(w *Worker) error { node(w, depth-1, kind+1); return nil })
			g.Go(func(w *Worker) error { node(w, depth-1, kind+4); return nil })
			g.Wait()
		case 4: // a spawned own task, asking in a defer while it panics
			f := Spawn(w, func(w *Worker) int {
				defer func() { note(w.Context()) }()
				node(w, depth-1, kind+1)
				panic("boom")
			})
			f.Wait(w)
			note(w.Context())
		}
	}
	for k := range 5 {
		if err := p.Submit(parent, func(w *Worker) { node(w, 4, k) }); err != nil {
			t.Fatal(err)
		}
	}
	if !waitUntil(func() bool { return blocked.Load() >= 2 }) {
		t.Fatal("the leaves never blocked")
	}
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	p.Shutdown(expired)
	<-p.ctx.Done()
	mu.Lock()
	before := append([]context.Context(nil), made...)
	mu.Unlock()
	for i, ctx := range before {
		if err := awaitDone(ctx); err == errNotCancelled {
			t.Errorf("context %d made before Shutdown gave up is live after it", i)
		}
	}
	unblock()
	// Top-level tasks not started when Shutdown gave up are skipped; Close
	// waits for the workers, and so for every task that started.
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	waitClosed(t, done, "Close after Shutdown gave up")
	mu.Lock()
	for i, ctx := range made {
		if err := awaitDone(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("context %d: %v", i, err)
		}
	}
	mu.Unlock()
	t.Logf("%d contexts made before Shutdown gave up, %d in all; %d spares; %d tasks skipped",
		len(before), len(made), len(p.spares.all), p.Stats().Total.Skipped)
	if bad.Load() != 0 {
		t.Errorf("%d contexts lacked the submitter's value", bad.Load())
	}
	checkOwnStacksEmpty(t, p)
}

// checkOwnStacksEmpty fails t if any worker (spares included) still holds a
// registered cancellation once its tasks are done.
func checkOwnStacksEmpty(t *testing.T, p *Pool) {
	t.Helper()
	all := append([]*core(nil), p.workers...)
	p.spares.mu.Lock()
	all = append(all, p.spares.all...)
	p.spares.mu.Unlock()
	ok := waitUntil(func() bool {
		for _, c := range all {
			c.owns.mu.Lock()
			n := len(c.owns.cancels)
			c.owns.mu.Unlock()
			if n != 0 {
				return false
			}
		}
		return true
	})
	if !ok {
		for _, c := range all {
			c.owns.mu.Lock()
			t.Errorf("worker %d: %d registrations left", c.id, len(c.owns.cancels))
			c.owns.mu.Unlock()
		}
	}
}

// A Goexit beneath a waiting own-context task (which asked before and one
// which did not) leaves the stacks empty and the tasks' contexts
// cancelled; a Goexit while the task's own context is being asked for
// in a deferred call of a task above also balances.
func TestOwnStacksAfterGoexit(t *testing.T) {
	p := New(WithWorkers(1))
	defer p.Close()
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	ctxs := make(chan context.Context, 8)
	done := make(chan struct{})
	if err := p.Submit(parent, func(w *Worker) {
		defer close(done)
		f := Spawn(w, func(w *Worker) int {
			ctxs <- w.Context()
			g := Spawn(w, func(w *Worker) int {
				defer func() { ctxs <- w.Context() }()
				runtime.Goexit()
				return 0
			})
			g.Wait(w)
			return 0
		})
		f.Wait(w)
	}); err != nil {
		t.Fatal(err)
	}
	await(done)
	// after the Goexit, more own tasks on the same worker
	for range 3 {
		r := make(chan context.Context, 1)
		p.Submit(parent, func(w *Worker) {
			Join(w, func(w *Worker) {}, func(w *Worker) {})
			r <- w.Context()
		})
		ctxs <- waitValue(t, r, "a task after the Goexit")
	}
	close(ctxs)
	for ctx := range ctxs {
		if err := awaitDone(ctx); err == errNotCancelled {
			t.Error("a task's context is live after it ended")
		}
	}
	checkOwnStacksEmpty(t, p)
}

// A task asks for its context only after its submitter's context has been
// cancelled (with a cause): the context is done at once, with that cause,
// and carries the submitter's value and deadline; the tasks it forks and
// spawns then see the same.
func TestAskAfterSubmitterCancelled(t *testing.T) {
	p := New(WithWorkers(2))
	defer p.Close()
	errWhy := errors.New("why")
	dl := time.Now().Add(time.Hour)
	base, cancelDL := context.WithDeadline(context.WithValue(context.Background(), taskCtxKey{}, 3), dl)
	defer cancelDL()
	parent, cancel := context.WithCancelCause(base)
	started, proceed := make(chan struct{}), make(chan struct{})
	type result struct {
		cause, partCause error
		value            any
		deadline         time.Time
	}
	got := make(chan result, 1)
	if err := p.Submit(parent, func(w *Worker) {
		close(started)
		await(proceed)
		ctx := w.Context()
		r := result{cause: awaitDone(ctx), value: ctx.Value(taskCtxKey{})}
		r.deadline, _ = ctx.Deadline()
		Join(w, func(*Worker) {}, func(w *Worker) { r.partCause = awaitDone(w.Context()) })
		got <- r
	}); err != nil {
		t.Fatal(err)
	}
	<-started
	cancel(errWhy)
	close(proceed)
	r := <-got
	if r.cause != errWhy || r.partCause != errWhy || r.value != 3 || !r.deadline.Equal(dl) {
		t.Fatalf("got cause %v, part's %v, value %v, deadline %v", r.cause, r.partCause, r.value, r.deadline)
	}
}

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
			Join(w, func(*Worker) { await(reading) }, read)
		}},
		{"stolen Fork2 part", func(w *Worker, read func(*Worker), reading <-chan struct{}) {
			Fork2(w, func(w *Worker, second bool) int {
				if second {
					read(w)
				} else {
					await(reading)
				}
				return 0
			}, false, true)
		}},
		{"stolen For body", func(w *Worker, read func(*Worker), reading <-chan struct{}) {
			For(w, 0, 2, func(w *Worker, i int) {
				if i == 1 {
					read(w)
				} else {
					await(reading)
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
// reports whether it was cancelled before hang, with what cause, and
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
		if _, ok := await(ctx.Done()); ok {
			r.cause = context.Cause(ctx)
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

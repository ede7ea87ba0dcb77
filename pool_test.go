package steal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/steal/internal/cputime"
)

// gatedPool returns a one-worker pool with a backlog cap whose worker is
// held by a task until the returned release is called.
func gatedPool(t *testing.T, maxQueued int) (p *Pool, release func()) {
	t.Helper()
	return heldPool(t, WithMaxQueued(maxQueued))
}

func TestBacklogTrySubmitFull(t *testing.T) {
	p, release := gatedPool(t, 4)
	defer p.Close()
	defer release()
	var ran atomic.Int64
	for i := 0; i < 4; i++ {
		if err := p.TrySubmit(func(*Worker) { ran.Add(1) }); err != nil {
			t.Fatalf("TrySubmit %d: %v", i, err)
		}
	}
	if err := p.TrySubmit(func(*Worker) { ran.Add(1) }); !errors.Is(err, ErrBacklogFull) {
		t.Fatalf("TrySubmit at the cap = %v, want ErrBacklogFull", err)
	}
	// Spawns from inside never count and never block.
	release()
	p.Close()
	if ran.Load() != 4 {
		t.Errorf("%d tasks ran, want 4", ran.Load())
	}
}

func TestBacklogSubmitBlocksAndResumes(t *testing.T) {
	p, release := gatedPool(t, 4)
	defer p.Close()
	defer release()
	var ran atomic.Int64
	inc := func(*Worker) { ran.Add(1) }
	for i := 0; i < 4; i++ {
		if err := p.Submit(context.Background(), inc); err != nil {
			t.Fatal(err)
		}
	}
	returned := make(chan error, 1)
	go func() { returned <- p.Submit(context.Background(), inc) }()
	stillBlocked(t, returned, 50*time.Millisecond, "Submit at the cap")
	release()
	waitNil(t, returned, "blocked Submit, once the backlog drained")
	p.Close()
	if ran.Load() != 5 {
		t.Errorf("%d tasks ran, want 5", ran.Load())
	}
}

func TestBacklogSubmitContextEnds(t *testing.T) {
	p, release := gatedPool(t, 2)
	defer p.Close()
	defer release()
	var ran atomic.Int64
	inc := func(*Worker) { ran.Add(1) }
	p.Submit(context.Background(), inc)
	p.Submit(context.Background(), inc)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Submit(ctx, inc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Submit with an expiring ctx at the cap = %v, want DeadlineExceeded", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := p.Submit(ctx2, inc); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit with a cancelled ctx at the cap = %v, want Canceled", err)
	}
	release()
	p.Close()
	if ran.Load() != 2 {
		t.Errorf("%d tasks ran, want 2 (the refused ones must not run)", ran.Load())
	}
}

// TestBacklogNoTaskDropped: many goroutines Submit and TrySubmit against a
// small cap while tasks also spawn; every accepted task runs exactly once.
func TestBacklogNoTaskDropped(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers), WithMaxQueued(8))
			var accepted, ran, spawned atomic.Int64
			var wg sync.WaitGroup
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 2000; i++ {
						fn := func(w *Worker) {
							ran.Add(1)
							if i%10 == 0 {
								spawned.Add(1)
								w.Spawn(func(*Worker) { ran.Add(1) })
							}
						}
						var err error
						if g%2 == 0 {
							err = p.Submit(context.Background(), fn)
						} else if err = p.TrySubmit(fn); errors.Is(err, ErrBacklogFull) {
							continue
						}
						if err != nil {
							t.Error(err)
							return
						}
						accepted.Add(1)
					}
				}()
			}
			wg.Wait()
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if want := accepted.Load() + spawned.Load(); ran.Load() != want {
				t.Errorf("ran %d tasks, accepted %d + spawned %d", ran.Load(), accepted.Load(), spawned.Load())
			}
			if s := p.Stats(); s.Total.Ran != uint64(ran.Load()) {
				t.Errorf("Stats.Total.Ran = %d, want %d", s.Total.Ran, ran.Load())
			}
			if q := p.queued.Load(); q != 0 {
				t.Errorf("backlog count %d after Close, want 0", q)
			}
		})
	}
}

// TestBacklogBlockedSubmitDoesNotSpin: a Submit waiting for backlog room
// must wait, not poll: the process's CPU time stays flat while it waits.
func TestBacklogBlockedSubmitDoesNotSpin(t *testing.T) {
	p, release := gatedPool(t, 1)
	defer p.Close()
	defer release()
	p.Go(func() {})
	returned := make(chan error, 1)
	go func() { returned <- p.Go(func() {}) }()
	time.Sleep(20 * time.Millisecond)
	before := cputime.Process(t)
	time.Sleep(300 * time.Millisecond)
	used := cputime.Process(t) - before
	release()
	if err := <-returned; err != nil {
		t.Fatal(err)
	}
	if used > 100*time.Millisecond {
		t.Errorf("one Submit blocked on a full backlog burned %v of CPU in 300ms: it polls instead of waiting", used)
	}
}

//go:noinline
func panickingTaskForTest(*Worker) { panic("boom from panickingTaskForTest") }

func TestPanicDoesNotKillWorker(t *testing.T) {
	p := New(WithWorkers(1))
	var after atomic.Int64
	for i := 0; i < 3; i++ {
		p.Submit(context.Background(), panickingTaskForTest)
		p.Go(func() { after.Add(1) })
	}
	err := p.Close()
	if after.Load() != 3 {
		t.Errorf("%d tasks ran after panics on the only worker, want 3", after.Load())
	}
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Close = %v, want an error wrapping *PanicError", err)
	}
	if pe.Value != "boom from panickingTaskForTest" {
		t.Errorf("PanicError.Value = %v", pe.Value)
	}
	if !bytes.Contains(pe.Stack, []byte("panickingTaskForTest")) {
		t.Errorf("PanicError.Stack lacks the panicking function:\n%s", pe.Stack)
	}
	if pe.Worker != 0 {
		t.Errorf("PanicError.Worker = %d", pe.Worker)
	}
	if j, ok := err.(interface{ Unwrap() []error }); !ok || len(j.Unwrap()) != 3 {
		t.Errorf("Close returned %T, want 3 joined panics", err)
	}
	if s := p.Stats(); s.Total.Panics != 3 || s.Total.Ran != 6 {
		t.Errorf("Stats: Panics %d Ran %d, want 3 and 6", s.Total.Panics, s.Total.Ran)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v, want nil (panics already returned)", err)
	}
}

func TestPanicErrorUnwrapsErrorValue(t *testing.T) {
	p := New(WithWorkers(2))
	p.Go(func() { panic(io.ErrUnexpectedEOF) })
	if err := p.Close(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Close = %v, want errors.Is io.ErrUnexpectedEOF", err)
	}
}

func TestWithPanicHandler(t *testing.T) {
	var mu sync.Mutex
	var got []*PanicError
	p := New(WithWorkers(2), WithPanicHandler(func(e *PanicError) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}))
	var ran atomic.Int64
	p.Submit(context.Background(), func(w *Worker) {
		w.Spawn(panickingTaskForTest)
		w.Spawn(func(*Worker) { ran.Add(1) })
	})
	if err := p.Close(); err != nil {
		t.Errorf("Close with a panic handler = %v, want nil", err)
	}
	if len(got) != 1 || !bytes.Contains(got[0].Stack, []byte("panickingTaskForTest")) {
		t.Fatalf("handler got %d panics: %v", len(got), got)
	}
	if ran.Load() != 1 {
		t.Errorf("sibling of the panicking task did not run")
	}
}

// TestCloseRunsQueuedAndLateSpawns: Close runs every queued task and
// everything running tasks spawn after Close began; then Submit, TrySubmit
// and Go return ErrClosed; Close again is fine.
func TestCloseRunsQueuedAndLateSpawns(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			gate := make(chan struct{})
			var ran atomic.Int64
			var tree func(depth int) func(*Worker)
			tree = func(depth int) func(*Worker) {
				return func(w *Worker) {
					ran.Add(1)
					if depth > 0 {
						w.Spawn(tree(depth - 1))
						w.Spawn(tree(depth - 1))
					}
				}
			}
			for i := 0; i < workers; i++ {
				p.Go(func() { <-gate }) // hold every worker
			}
			for i := 0; i < 50; i++ {
				p.Submit(context.Background(), tree(6)) // 127 tasks each, spawned after Close began
			}
			closed := make(chan error, 1)
			go func() { closed <- p.Close() }()
			if !waitUntil(p.closed.Load) {
				t.Fatal("Close did not start")
			}
			if err := p.Go(func() {}); !errors.Is(err, ErrClosed) {
				t.Errorf("Go during Close = %v, want ErrClosed", err)
			}
			close(gate)
			waitNil(t, closed, "Close")
			if ran.Load() != 50*127 {
				t.Errorf("ran %d tasks, want %d", ran.Load(), 50*127)
			}
			if err := p.Submit(context.Background(), func(*Worker) {}); !errors.Is(err, ErrClosed) {
				t.Errorf("Submit after Close = %v", err)
			}
			if err := p.TrySubmit(func(*Worker) {}); !errors.Is(err, ErrClosed) {
				t.Errorf("TrySubmit after Close = %v", err)
			}
			if err := p.Go(func() {}); !errors.Is(err, ErrClosed) {
				t.Errorf("Go after Close = %v", err)
			}
			if err := p.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
			if err := p.Shutdown(context.Background()); err != nil {
				t.Errorf("Shutdown after Close = %v", err)
			}
		})
	}
}

// TestShutdownExpiredContext: Shutdown whose ctx ends first returns
// ctx.Err() and cancels Worker.Context; the tasks queued behind the busy
// workers have not started by then, so they are skipped, and Stats counts
// every one of them.
func TestShutdownExpiredContext(t *testing.T) {
	p := New(WithWorkers(2))
	gate := make(chan struct{})
	started := make(chan struct{}, 2)
	var ran atomic.Int64
	sawCancel := make(chan struct{})
	p.Submit(context.Background(), func(w *Worker) {
		started <- struct{}{}
		<-w.Context().Done()
		close(sawCancel)
		<-gate
	})
	p.Go(func() { started <- struct{}{}; <-gate })
	for i := 0; i < 2; i++ { // both workers busy: nothing queued next can start
		waitValue(t, started, "the start of the two blocking tasks")
	}
	for i := 0; i < 100; i++ {
		p.Go(func() { ran.Add(1) })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want DeadlineExceeded", err)
	}
	waitClosed(t, sawCancel, "Worker.Context cancelled by Shutdown")
	close(gate)
	if err := p.Close(); err != nil {
		t.Errorf("Close after an expired Shutdown = %v", err)
	}
	if n, s := ran.Load(), p.Stats().Total.Skipped; n != 0 || s != 100 {
		t.Errorf("after Shutdown gave up: %d queued tasks ran, %d skipped; want 0 and 100", n, s)
	}
	if err := p.Go(func() {}); !errors.Is(err, ErrClosed) {
		t.Errorf("Go after Shutdown = %v", err)
	}
}

// TestShutdownExpiredRunsOrSkipsEach: when Shutdown gives up while workers
// are still taking queued tasks, each task either runs or is skipped, once:
// none is lost and none runs twice.
func TestShutdownExpiredRunsOrSkipsEach(t *testing.T) {
	for round := 0; round < 20; round++ {
		p := New(WithWorkers(2))
		const n = 2000
		var ran atomic.Int64
		for i := 0; i < n; i++ {
			p.Go(func() { ran.Add(1) })
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(round%4)*50*time.Microsecond)
		p.Shutdown(ctx) // may finish or give up: either way the counts must add up
		cancel()
		if err := p.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
		st := p.Stats().Total
		if got := uint64(ran.Load()); got != st.Completed || got+st.Skipped != n {
			t.Fatalf("round %d: %d ran, Completed %d, Skipped %d; want ran = Completed and ran + Skipped = %d", round, got, st.Completed, st.Skipped, n)
		}
	}
}

// TestStatsAddUp: after Close the counters are exact: Total.Ran is every
// task run, Total.Spawned every Spawn, tasks stolen in equal tasks stolen
// out, the queues are empty and the totals are the sums of the workers.
func TestStatsAddUp(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("W=%d", workers), func(t *testing.T) {
			p := New(WithWorkers(workers))
			const roots, fan = 200, 300
			var ran atomic.Int64
			for i := 0; i < roots; i++ {
				p.Submit(context.Background(), func(w *Worker) {
					ran.Add(1)
					for j := 0; j < fan; j++ { // overflows the 256-slot ring
						w.Spawn(func(*Worker) { ran.Add(1) })
					}
				})
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			s := p.Stats()
			if s.Total.Ran != uint64(ran.Load()) || ran.Load() != roots*(fan+1) {
				t.Errorf("Total.Ran %d, tasks run %d, want %d", s.Total.Ran, ran.Load(), roots*(fan+1))
			}
			if s.Total.Spawned != roots*fan {
				t.Errorf("Total.Spawned %d, want %d", s.Total.Spawned, roots*fan)
			}
			if s.Total.StolenIn != s.Total.StolenOut {
				t.Errorf("StolenIn %d != StolenOut %d", s.Total.StolenIn, s.Total.StolenOut)
			}
			if workers == 1 && (s.Total.Steals != 0 || s.Total.StolenIn != 0) {
				t.Errorf("one worker stole: %+v", s.Total)
			}
			if s.Total.Overflows == 0 {
				t.Errorf("spawning %d tasks at once never overflowed the ring", fan)
			}
			if s.Inject != 0 || s.Total.RingLen != 0 || s.Total.Runnext {
				t.Errorf("not drained: %+v", s)
			}
			var sum WorkerStats
			for _, w := range s.Workers {
				sum.add(w)
			}
			if sum != s.Total {
				t.Errorf("Total %+v is not the sum of the workers %+v", s.Total, sum)
			}
		})
	}
}

var schedLine = regexp.MustCompile(`^SCHED \d+ms: workers=\d+ idle=\d+ spinning=\d+ inject=\d+ local=\[[0-9 ]+\]`)

// syncBuffer is a bytes.Buffer safe for the schedtrace goroutine to write
// while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func checkSchedLines(t *testing.T, out string, workers int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("want at least 2 schedtrace lines, got %q", out)
	}
	for _, l := range lines {
		if !schedLine.MatchString(l) {
			t.Errorf("bad schedtrace line %q", l)
		}
		if !strings.Contains(l, fmt.Sprintf("workers=%d ", workers)) {
			t.Errorf("line %q: want workers=%d", l, workers)
		}
	}
}

func TestWithSchedTrace(t *testing.T) {
	var buf syncBuffer
	p := New(WithWorkers(3), WithSchedTrace(2*time.Millisecond, &buf))
	for i := 0; i < 100; i++ {
		p.Go(func() { time.Sleep(100 * time.Microsecond) })
	}
	waitUntil(func() bool { return strings.Count(buf.String(), "\n") >= 3 })
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	checkSchedLines(t, buf.String(), 3)
	n := strings.Count(buf.String(), "\n")
	time.Sleep(10 * time.Millisecond)
	if m := strings.Count(buf.String(), "\n"); m != n {
		t.Errorf("schedtrace kept writing after Close: %d lines, then %d", n, m)
	}
	if l := p.SchedTrace(1500 * time.Millisecond); !schedLine.MatchString(l) || !strings.HasPrefix(l, "SCHED 1500ms: ") {
		t.Errorf("SchedTrace = %q", l)
	}
}

func TestSchedTraceEnv(t *testing.T) {
	t.Setenv("STEALDEBUG", "schedtrace=2")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	copied := make(chan struct{})
	go func() { io.Copy(&out, r); close(copied) }()
	stderr := os.Stderr
	os.Stderr = w
	p := New(WithWorkers(2)) // reads os.Stderr now
	os.Stderr = stderr
	// Wait for lines rather than a fixed time: a loaded machine can hold
	// the trace's goroutine off its processor for longer than a period.
	waitUntil(func() bool { return strings.Count(out.String(), "\n") >= 2 })
	err = p.Close()
	w.Close()
	<-copied
	if err != nil {
		t.Fatal(err)
	}
	checkSchedLines(t, out.String(), 2)

	// An explicit WithSchedTrace wins over the environment.
	var buf syncBuffer
	p = New(WithWorkers(1), WithSchedTrace(time.Millisecond, &buf))
	waitUntil(func() bool { return strings.Count(buf.String(), "\n") >= 2 })
	p.Close()
	checkSchedLines(t, buf.String(), 1)

	// So does an explicit WithSchedTrace(0, ...): no trace at all.
	var none config
	WithSchedTrace(0, &buf)(&none)
	none.fromEnv()
	if none.traceEvery != 0 {
		t.Errorf("WithSchedTrace(0) with STEALDEBUG=schedtrace=2: a trace every %v, want none", none.traceEvery)
	}
}

// TestCloseTwiceWithSchedTrace: Close is documented idempotent, also for a
// pool with a schedtrace.
func TestCloseTwiceWithSchedTrace(t *testing.T) {
	p := New(WithWorkers(1), WithSchedTrace(time.Hour, io.Discard))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("second Close of a pool with WithSchedTrace panicked: %v", r)
		}
	}()
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestShutdownExpiredStopsSchedTrace: after Shutdown gave up waiting, the
// workers finish the queue and exit on their own (package comment); the
// schedtrace goroutine must stop with them rather than write forever.
func TestShutdownExpiredStopsSchedTrace(t *testing.T) {
	var buf syncBuffer
	p := New(WithWorkers(1), WithSchedTrace(time.Millisecond, &buf))
	gate := make(chan struct{})
	p.Go(func() { <-gate })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown = %v", err)
	}
	close(gate)
	if !waitUntil(func() bool {
		select {
		case <-p.done:
			return p.Stats().Idle == 1
		default:
			return false
		}
	}) {
		t.Fatalf("the pool did not finish after an expired Shutdown: %s", p.SchedTrace(0))
	}
	// The workers exit, and then the schedtrace stops: wait for that (a
	// fixed 5 ms was too short on a loaded machine), then check that no
	// line comes after it.
	if _, ok := await(p.trace.done); !ok {
		p.Close()
		t.Fatalf("pool finished after an expired Shutdown, but its schedtrace still runs %v later", hang)
	}
	n := strings.Count(buf.String(), "\n")
	time.Sleep(20 * time.Millisecond)
	m := strings.Count(buf.String(), "\n")
	p.Close() // let goleak pass either way
	if m != n {
		t.Errorf("pool finished after an expired Shutdown, but its schedtrace kept writing (%d lines, then %d)", n, m)
	}
}

// TestBacklogNoLostRoomWakeup replays, deterministically, an interleaving of
// a Submit waiting for backlog room with a TrySubmit that fails at the cap.
// The TrySubmit's two steps in submitTask (queued.Add(1) finding the cap
// full, then queued.Add(-1) "wake nobody") are done here by hand on
// p.queued, around a worker picking up a queued task:
//
//  1. cap 1, one task X queued (queued=1); Submit(Y) waits in waitRoom.
//  2. TrySubmit: queued.Add(1) -> 2, over the cap.
//  3. X is picked up: releaseQueued -> queued=1, still at the cap, so it
//     wakes nobody (a waiter it woke would retry, see 1+1 > cap, and wait
//     again: the same state).
//  4. TrySubmit: queued.Add(-1) -> 0.
//
// Had step 4 only taken its count back, the backlog would be empty with
// nothing queued that could start and wake the Submit, which would wait
// forever (here: until its 5 s context ends). undoRefused wakes the
// waiters when its release leaves room, as a pick-up does.
func TestBacklogNoLostRoomWakeup(t *testing.T) {
	p, release := gatedPool(t, 1)
	defer p.Close()
	defer release()
	if err := p.Go(func() {}); err != nil { // X
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	returned := make(chan error, 1)
	go func() { returned <- p.Submit(ctx, func(*Worker) {}) }() // Y
	if !waitUntil(func() bool { return p.roomWaiters.Load() == 1 }) {
		t.Fatal("Submit never waited for room")
	}
	time.Sleep(10 * time.Millisecond) // let it reach its select
	p.queued.Add(1)                   // 2: a TrySubmit's Add, over the cap
	release()                         // 3: X is picked up; still at the cap
	if !waitUntil(func() bool { return p.Stats().Idle == 1 }) {
		t.Fatal("X did not run")
	}
	time.Sleep(10 * time.Millisecond) // a Submit woken by 3 would have retried and waited again
	p.undoRefused()                   // 4: the refused TrySubmit undoes its Add
	if err := <-returned; err != nil {
		t.Errorf("Submit waiting for room with an empty backlog (queued=%d): %v: wakeup lost", p.queued.Load(), err)
	}
}

// TestBacklogClosingWakesWaiters: Submit, Go and PoolSpawn blocked on a full
// backlog return ErrClosed, queuing nothing, as soon as Close or Shutdown
// begins, while the worker is still held: they must not wait for room that
// only the draining would make. TrySubmit then says ErrClosed, not
// ErrBacklogFull. The tasks accepted before all run.
func TestBacklogClosingWakesWaiters(t *testing.T) {
	for _, how := range []string{"Close", "Shutdown"} {
		t.Run(how, func(t *testing.T) {
			p, release := gatedPool(t, 2)
			defer p.Close()
			defer release()
			var ran, late atomic.Int64
			for range 2 {
				if err := p.Submit(context.Background(), func(*Worker) { ran.Add(1) }); err != nil {
					t.Fatal(err)
				}
			}
			waiters := []func() error{
				func() error { return p.Submit(context.Background(), func(*Worker) { late.Add(1) }) },
				func() error { return p.Go(func() { late.Add(1) }) },
				func() error {
					_, err := PoolSpawn(context.Background(), p, func(*Worker) int { late.Add(1); return 0 })
					return err
				},
			}
			errs := make(chan error, len(waiters))
			for _, w := range waiters {
				go func() { errs <- w() }()
			}
			if !waitUntil(func() bool { return p.roomWaiters.Load() == int64(len(waiters)) }) {
				t.Fatal("the submits never waited for room")
			}
			time.Sleep(10 * time.Millisecond) // let them reach their select
			// Its end would wake the submits: it must outlast the wait for
			// them below (hang).
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			closed := make(chan error, 1)
			go func() {
				if how == "Close" {
					closed <- p.Close()
				} else {
					closed <- p.Shutdown(ctx) // a deadline that does not end: no cancel wakes them
				}
			}()
			if !waitUntil(p.closed.Load) {
				t.Fatal(how + " did not start")
			}
			for range waiters {
				err, ok := await(errs)
				if !ok {
					t.Fatalf("a submit blocked on a full backlog still waits %v after %s began; want ErrClosed", hang, how)
				}
				if !errors.Is(err, ErrClosed) {
					t.Errorf("submit blocked on a full backlog when %s began = %v, want ErrClosed", how, err)
				}
			}
			if err := p.TrySubmit(func(*Worker) { late.Add(1) }); !errors.Is(err, ErrClosed) {
				t.Errorf("TrySubmit on a full backlog after %s began = %v, want ErrClosed", how, err)
			}
			release()
			waitNil(t, closed, how)
			if ran.Load() != 2 || late.Load() != 0 {
				t.Errorf("ran %d accepted tasks (want 2) and %d refused ones (want 0)", ran.Load(), late.Load())
			}
			if q := p.queued.Load(); q != 0 {
				t.Errorf("backlog count %d after %s, want 0", q, how)
			}
		})
	}
}

// TestBacklogCloseProducerDeadlock: a running task waits for a producer
// that Submits until it gets ErrClosed. Close waits for that task, so Close
// returns only if the producer, blocked on the full backlog, gets ErrClosed
// once Close begins, as Submit documents.
func TestBacklogCloseProducerDeadlock(t *testing.T) {
	p := New(WithWorkers(1), WithMaxQueued(4))
	producerStopped, started := make(chan struct{}), make(chan struct{})
	if err := p.Go(func() { close(started); <-producerStopped }); err != nil {
		t.Fatal(err)
	}
	<-started
	var accepted, ran atomic.Int64
	go func() {
		defer close(producerStopped)
		for {
			err := p.Submit(context.Background(), func(*Worker) { ran.Add(1) })
			if err == nil {
				accepted.Add(1)
				continue
			}
			if !errors.Is(err, ErrClosed) {
				t.Errorf("producer's Submit = %v, want nil or ErrClosed", err)
			}
			return
		}
	}()
	if !waitUntil(func() bool { return p.roomWaiters.Load() == 1 }) {
		t.Fatal("the producer never waited for room")
	}
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	err, ok := await(done)
	if !ok {
		// Unwedge, so that the test ends: an expired Shutdown cancels the
		// pool's context, which wakes the producer.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		p.Shutdown(ctx)
		<-producerStopped
		<-done
		t.Fatal("Close deadlocked: the producer's Submit waits on the full backlog instead of returning ErrClosed")
	}
	if err != nil {
		t.Fatal(err)
	}
	if accepted.Load() != 4 || ran.Load() != 4 {
		t.Errorf("accepted %d and ran %d tasks, want 4 and 4", accepted.Load(), ran.Load())
	}
}

// TestBacklogGroupGoWhenClosing: a Pool.Group's Go blocked on a full backlog
// returns once Close begins; its child does not run and Wait returns
// ErrClosed, as Group.Go documents. With and without a limit (the limited
// Go queues through addShared).
func TestBacklogGroupGoWhenClosing(t *testing.T) {
	for _, limit := range []int{-1, 4} {
		t.Run(fmt.Sprint("limit", limit), func(t *testing.T) {
			p, release := gatedPool(t, 1)
			defer p.Close()
			defer release()
			if err := p.Go(func() {}); err != nil { // fills the backlog
				t.Fatal(err)
			}
			g := p.Group(context.Background())
			g.SetLimit(limit)
			var ran atomic.Int64
			went := make(chan struct{})
			go func() {
				defer close(went)
				g.Go(func(*Worker) error { ran.Add(1); return nil })
			}()
			if !waitUntil(func() bool { return p.roomWaiters.Load() == 1 }) {
				t.Fatal("Group.Go never waited for room")
			}
			time.Sleep(10 * time.Millisecond) // let it reach its select
			closed := make(chan error, 1)
			go func() { closed <- p.Close() }()
			if !waitUntil(p.closed.Load) {
				t.Fatal("Close did not start")
			}
			waitClosed(t, went, "Group.Go blocked on a full backlog when Close began")
			within(t, "Group.Wait after Close began", func() {
				if err := g.Wait(); !errors.Is(err, ErrClosed) {
					t.Errorf("Wait = %v, want ErrClosed", err)
				}
			})
			release()
			waitNil(t, closed, "Close")
			if ran.Load() != 0 {
				t.Errorf("the child refused at Close ran %d times, want 0", ran.Load())
			}
		})
	}
}

// TestShutdownEndedContextIdlePool: a pool with nothing queued or running
// has run all its tasks, so Shutdown returns what Close would, nil here,
// even with a context that has already ended: the context bounds the wait
// for tasks, and there are none. Each round also runs a task to the end
// first, so that the workers park again before Shutdown begins.
func TestShutdownEndedContextIdlePool(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for round := 0; round < 200; round++ {
		p := New(WithWorkers(2))
		if round%2 == 1 {
			if err := p.Run(func(*Worker) {}); err != nil {
				t.Fatal(err)
			}
			waitAllParked(t, p)
		}
		if err := p.Shutdown(ctx); err != nil {
			t.Fatalf("round %d: Shutdown(ended ctx) of an idle pool = %v, want nil", round, err)
		}
	}
}

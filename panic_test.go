package steal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// panicsIn splits what Close returned into the kept panics and the
// dropped-panics error, failing on anything else.
func panicsIn(t *testing.T, err error) (kept []*PanicError, dropped *DroppedPanicsError) {
	t.Helper()
	if err == nil {
		return nil, nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		switch e := e.(type) {
		case *PanicError:
			kept = append(kept, e)
		case *DroppedPanicsError:
			if dropped != nil {
				t.Errorf("two *DroppedPanicsError in %v", err)
			}
			dropped = e
		default:
			t.Errorf("Close returned %T %v among the panics", e, e)
		}
	}
	return kept, dropped
}

// panicMany runs n tasks that panic with their index and waits until all
// of them have reached their panic.
func panicMany(t *testing.T, p *Pool, n int) {
	t.Helper()
	reached := newCountdown(n)
	for i := range n {
		p.Go(func() {
			defer reached.dec()
			panic(i)
		})
	}
	waitClosed(t, reached.done, fmt.Sprintf("%d panicking tasks", n))
}

// TestPanicRetentionIsBounded: a pool keeps the first 64 panics, however
// many tasks panic, and reports the rest by their exact number.
func TestPanicRetentionIsBounded(t *testing.T) {
	const n = 100_000
	p := New(WithWorkers(2))
	panicMany(t, p, n)
	err := p.Close()
	kept, dropped := panicsIn(t, err)
	if len(kept) != defaultPanicLimit {
		t.Errorf("Close returned %d panics, want the first %d", len(kept), defaultPanicLimit)
	}
	if dropped == nil || dropped.Count != n-defaultPanicLimit || dropped.Limit != defaultPanicLimit {
		t.Fatalf("Close's dropped panics = %+v, want Count %d Limit %d", dropped, n-defaultPanicLimit, defaultPanicLimit)
	}
	s := p.Stats()
	if s.Total.Panics != n || s.PanicsKept != defaultPanicLimit || s.PanicsDropped != n-defaultPanicLimit {
		t.Errorf("Stats: Panics %d kept %d dropped %d, want %d, %d, %d",
			s.Total.Panics, s.PanicsKept, s.PanicsDropped, n, defaultPanicLimit, n-defaultPanicLimit)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func TestWithPanicLimit(t *testing.T) {
	const n = 10
	for _, tc := range []struct{ limit, kept int }{{3, 3}, {n, n}, {20, n}, {0, 0}, {-5, 0}} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			p := New(WithWorkers(2), WithPanicLimit(tc.limit))
			panicMany(t, p, n)
			err := p.Close()
			kept, dropped := panicsIn(t, err)
			if len(kept) != tc.kept {
				t.Errorf("Close returned %d panics, want %d", len(kept), tc.kept)
			}
			wantDropped := uint64(n - tc.kept)
			if wantDropped == 0 {
				if dropped != nil {
					t.Errorf("Close reported %v with nothing dropped", dropped)
				}
				return
			}
			if dropped == nil || dropped.Count != wantDropped {
				t.Fatalf("Close = %v, want %d panics reported dropped", err, wantDropped)
			}
			want := fmt.Sprintf("steal: %d more task panics were not kept (limit %d)", wantDropped, tc.kept)
			if dropped.Error() != want {
				t.Errorf("dropped.Error() = %q, want %q", dropped.Error(), want)
			}
			if s := p.Stats(); s.PanicsKept != uint64(tc.kept) || s.PanicsDropped != wantDropped {
				t.Errorf("Stats: kept %d dropped %d", s.PanicsKept, s.PanicsDropped)
			}
		})
	}
}

// TestPanicErrorIsOneLine: Error has no stack; %+v adds it.
func TestPanicErrorIsOneLine(t *testing.T) {
	p := New(WithWorkers(1))
	p.Go(func() { panickingTaskForTest(nil) })
	err := p.Close()
	const want = "steal: task panicked on worker 0: boom from panickingTaskForTest"
	if err == nil || err.Error() != want {
		t.Fatalf("Close() = %q, want %q", err, want)
	}
	var pe *PanicError
	errors.As(err, &pe)
	if got := fmt.Sprintf("%v|%s", pe, pe); got != want+"|"+want {
		t.Errorf("%%v|%%s = %q", got)
	}
	if got := fmt.Sprintf("%q", pe); got != fmt.Sprintf("%q", want) {
		t.Errorf("%%q = %s", got)
	}
	plus := fmt.Sprintf("%+v", pe)
	if !strings.HasPrefix(plus, want+"\n\n") || !strings.HasSuffix(plus, string(pe.Stack)) ||
		!strings.Contains(plus, "panickingTaskForTest") {
		t.Errorf("%%+v = %q, want the line, a blank line and the stack", plus)
	}
}

// TestSetPanicHandlerAtRunTime: a handler set at run time takes the panics
// from then on; nil goes back to keeping them for Close.
func TestSetPanicHandlerAtRunTime(t *testing.T) {
	p := New(WithWorkers(2))
	keptBecomes := func(n uint64) {
		t.Helper()
		if !waitUntil(func() bool { return p.Stats().PanicsKept == n }) {
			t.Fatalf("kept panics = %d, want %d", p.Stats().PanicsKept, n)
		}
	}
	p.Go(func() { panic("a") })
	keptBecomes(1)
	handled := make(chan *PanicError, 1)
	p.SetPanicHandler(func(e *PanicError) { handled <- e })
	p.Go(func() { panic("b") })
	if e := waitValue(t, handled, "the handler set at run time"); e.Value != "b" {
		t.Errorf("handler got %v, want b", e.Value)
	}
	p.SetPanicHandler(nil)
	p.Go(func() { panic("c") })
	keptBecomes(2)
	kept, _ := panicsIn(t, p.Close())
	if len(kept) != 2 || kept[0].Value != "a" || kept[1].Value != "c" {
		t.Errorf("Close returned %v, want panics a and c", kept)
	}
}

// TestSetPanicHandlerRace: switching the handler while tasks panic loses
// no panic and counts none twice; -race checks the switch itself.
func TestSetPanicHandlerRace(t *testing.T) {
	const n = 2000
	p := New(WithWorkers(2), WithPanicLimit(n))
	var handled atomic.Int64
	h := func(*PanicError) { handled.Add(1) }
	stop := make(chan struct{})
	var flipper sync.WaitGroup
	flipper.Add(1)
	go func() {
		defer flipper.Done()
		for i := 0; i < 100_000; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				p.SetPanicHandler(h)
			} else {
				p.SetPanicHandler(nil)
			}
		}
	}()
	panicMany(t, p, n)
	close(stop)
	flipper.Wait()
	kept, dropped := panicsIn(t, p.Close())
	if got := int64(len(kept)) + handled.Load(); got != n || dropped != nil {
		t.Errorf("kept %d + handled %d = %d, dropped %v; want %d in all, none dropped",
			len(kept), handled.Load(), got, dropped, n)
	}
}

// lockedBuffer is a bytes.Buffer safe for a logger and a reader at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDefaultLogsPanics: Default, which nobody closes, logs each panic as
// one line through slog's default logger (here left as the program starts,
// writing through package log) and keeps none.
func TestDefaultLogsPanics(t *testing.T) {
	var out lockedBuffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&out)
	Default().Submit(t.Context(), panickingTaskForTest)
	if !waitUntil(func() bool { return strings.Contains(out.String(), "\n") }) {
		t.Fatalf("Default logged nothing for a panic: %q", out.String())
	}
	line := out.String()
	if strings.Count(line, "\n") != 1 {
		t.Errorf("logged %d lines, want one:\n%s", strings.Count(line, "\n"), line)
	}
	for _, want := range []string{`ERROR steal: task panicked worker=`,
		` value="boom from panickingTaskForTest" stack="goroutine `, `panickingTaskForTest`} {
		if !strings.Contains(line, want) {
			t.Errorf("log line lacks %q:\n%s", want, line)
		}
	}
	if s := Default().Stats(); s.PanicsKept != 0 || s.PanicsDropped != 0 {
		t.Errorf("Default kept %d and dropped %d panics, want none", s.PanicsKept, s.PanicsDropped)
	}
}

// TestShutdownTimeoutLeavesPanicsForClose: a Shutdown that gives up waiting
// returns ctx.Err(), and the panics of the tasks still running come with
// the Close after it. The task has started before Shutdown is called: one
// that had not when Shutdown gave up would be skipped, as Shutdown
// documents, and panic nowhere (on a loaded machine the worker did not
// always take it within the millisecond).
func TestShutdownTimeoutLeavesPanicsForClose(t *testing.T) {
	p := New(WithWorkers(1))
	started := make(chan struct{})
	p.Submit(t.Context(), func(w *Worker) {
		close(started)
		<-w.Context().Done() // cancelled when Shutdown gives up
		panic("late")
	})
	waitClosed(t, started, "the task that panics late")
	ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancel()
	if err := p.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown = %v, want context.DeadlineExceeded", err)
	}
	kept, _ := panicsIn(t, p.Close())
	if len(kept) != 1 || kept[0].Value != "late" {
		t.Errorf("Close after Shutdown returned %v, want the late panic", kept)
	}
}

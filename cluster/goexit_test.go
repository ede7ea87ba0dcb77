package cluster

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal"
)

// goexitHandler counts the run of each job, then calls runtime.Goexit, as
// t.FailNow and t.SkipNow do.
func (h *harness) goexitHandler() Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		runtime.Goexit()
		return nil, nil
	}
}

// goexitWorker starts w1 with slots slots and no stealing, whose "exit"
// jobs call runtime.Goexit and whose "job" jobs return "done:<id>", and
// waits until it answers.
func (h *harness) goexitWorker(slots int) *Worker {
	h.t.Helper()
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("exit", h.goexitHandler())
		w.Handle("job", h.doneHandler())
	}, WithSlots(slots), WithStealMode(StealOff))
	h.ready("w1")
	return w1
}

// waitBrief returns the result of id, failing the test after 5 s.
func (h *harness) waitBrief(id string) *Result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := h.client.Wait(ctx, id)
	if err != nil {
		h.t.Fatalf("wait %s: %v", id, err)
	}
	return r
}

// idleBrief fails the test unless the cluster is idle within 5 s.
func (h *harness) idleBrief() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.client.WaitIdle(ctx); err != nil {
		h.t.Fatalf("cluster not idle: %v", err)
	}
}

// goesOn checks that w1 still runs a job ("n", of type job) and that the
// cluster then goes idle.
func (h *harness) goesOn(t *testing.T) {
	t.Helper()
	if err := h.client.Submit(context.Background(), "n", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	if r := h.waitBrief("n"); r.Err != nil || string(r.Value) != "done:n" {
		t.Errorf("n: result %q, err %v", r.Value, r.Err)
	}
	h.idleBrief()
}

// wantFailed fails the test unless r is a failure recorded with
// ErrHandlerPanic's code whose text holds text.
func wantFailed(t *testing.T, id string, r *Result, text string) {
	t.Helper()
	var je *JobError
	if !errors.As(r.Err, &je) || !errors.Is(r.Err, ErrHandlerPanic) || !strings.Contains(je.Text, text) {
		t.Errorf("%s: err %v, want ErrHandlerPanic with %q", id, r.Err, text)
	}
}

// closeClean closes w, failing the test unless Close returns nil: a
// Goexit recorded as a job's failure is not an error of Close's.
func closeClean(t *testing.T, w *Worker) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
}

// TestGoexitFailsJob: a handler that calls runtime.Goexit has its job
// recorded as failed with ErrHandlerPanic, and its slot (the only one)
// goes on to the next job: the worker goes idle and closes cleanly.
func TestGoexitFailsJob(t *testing.T) {
	h := newHarness(t)
	w1 := h.goexitWorker(1)
	if err := h.client.Submit(context.Background(), "g", "exit", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	wantFailed(t, "g", h.waitBrief("g"), "runtime.Goexit")
	h.goesOn(t)
	if n := h.runCount("g"); n != 1 {
		t.Errorf("g ran %d times, want 1", n)
	}
	closeClean(t, w1)
}

// TestGoexitMixed: Goexit jobs and plain ones on two slots are all
// recorded, and the worker goes idle.
func TestGoexitMixed(t *testing.T) {
	h := newHarness(t)
	w1 := h.goexitWorker(2)
	var jobs []BatchJob
	for i := range 24 {
		typ := "job"
		if i%3 == 1 {
			typ = "exit"
		}
		jobs = append(jobs, BatchJob{ID: typ + strconv.Itoa(i), Type: typ})
	}
	if err := h.client.SubmitBatch(context.Background(), jobs, To("w1")); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		r := h.waitBrief(j.ID)
		if j.Type == "exit" {
			wantFailed(t, j.ID, r, "runtime.Goexit")
		} else if r.Err != nil {
			t.Errorf("%s: %v", j.ID, r.Err)
		}
	}
	h.idleBrief()
	closeClean(t, w1)
}

// TestGoexitBundle: a bundle whose middle job calls runtime.Goexit keeps
// the outcomes of the jobs that ran, records the Goexit as that job's
// failure, and records the jobs after it as failed without running them;
// the worker goes on.
func TestGoexitBundle(t *testing.T) {
	h := newHarness(t)
	w1 := h.goexitWorker(1)
	jobs := []BatchJob{{ID: "a", Type: "job"}, {ID: "b", Type: "job"}, {ID: "g", Type: "exit"},
		{ID: "c", Type: "job"}, {ID: "d", Type: "job"}}
	if err := h.client.SubmitBundle(context.Background(), jobs, To("w1")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if r := h.waitBrief(id); r.Err != nil || string(r.Value) != "done:"+id {
			t.Errorf("%s: result %q, err %v", id, r.Value, r.Err)
		}
	}
	wantFailed(t, "g", h.waitBrief("g"), "runtime.Goexit")
	for _, id := range []string{"c", "d"} {
		wantFailed(t, id, h.waitBrief(id), "did not run")
		if n := h.runCount(id); n != 0 {
			t.Errorf("%s ran %d times, want 0", id, n)
		}
	}
	h.goesOn(t)
	if n := h.count("q.>"); n != 0 {
		t.Errorf("%d records live, want 0", n)
	}
	closeClean(t, w1)
}

// TestGoexitMem: with children held in memory (WithSpawnRecords(false)),
// a child that calls runtime.Goexit (after spawning a child of its own)
// fails as a child that panics does, and its root's completion is
// recorded once the subtree finished; a root that calls Goexit is
// recorded as failed. The worker goes idle.
func TestGoexitMem(t *testing.T) {
	h := newHarness(t)
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("root", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			for _, typ := range []string{"job", "exit", "job"} {
				if _, err := j.Spawn(ctx, typ, nil); err != nil {
					return nil, err
				}
			}
			return []byte("root"), nil
		})
		w.Handle("exit", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			runtime.Goexit()
			return nil, nil
		})
		w.Handle("job", h.doneHandler())
	}, WithSlots(1), WithStealMode(StealOff), WithSpawnRecords(false))
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "r", "root", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	if r := h.waitBrief("r"); r.Err != nil || string(r.Value) != "root" {
		t.Errorf("r: result %q, err %v", r.Value, r.Err)
	}
	// r-1 called Goexit after spawning r-1-0, which ran all the same.
	for _, id := range []string{"r-0", "r-1", "r-1-0", "r-2"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want 1", id, n)
		}
	}
	if err := h.client.Submit(context.Background(), "x", "exit", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	wantFailed(t, "x", h.waitBrief("x"), "runtime.Goexit")
	h.idleBrief()
	if st := w1.Stats(); st.MemRuns != 5 || st.ChildFailures != 1 {
		t.Errorf("stats %+v, want 5 in-memory runs, 1 failed", st)
	}
	closeClean(t, w1)
}

// TestGoexitDropsPoolErrors: Close takes out of the pool's error as many
// Goexits as handlers called (kept, then counted past the pool's limit),
// and keeps the rest.
func TestGoexitDropsPoolErrors(t *testing.T) {
	goexit := func() error { return &steal.PanicError{Value: steal.ErrGoexit} }
	boom := &steal.PanicError{Value: "boom"}
	for _, c := range []struct {
		n    int64
		in   error
		want []string
	}{
		{0, nil, nil},
		{2, nil, nil},
		{1, goexit(), nil},
		{1, errors.Join(goexit(), boom), []string{"boom"}},
		{1, errors.Join(goexit(), goexit()), []string{"Goexit"}},
		{3, errors.Join(goexit(), boom, &steal.DroppedPanicsError{Count: 5, Limit: 2}), []string{"boom", "3 more"}},
		{6, errors.Join(goexit(), boom, &steal.DroppedPanicsError{Count: 5, Limit: 2}), []string{"boom"}},
	} {
		w := &Worker{}
		w.goexits.Store(c.n)
		err := w.dropGoexits(c.in)
		if c.want == nil {
			if err != nil {
				t.Errorf("%d of %v: %v, want nil", c.n, c.in, err)
			}
			continue
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if n := strings.Count(got, "\n") + 1; n != len(c.want) {
			t.Errorf("%d of %v: %q, want %d errors", c.n, c.in, got, len(c.want))
		}
		for _, s := range c.want {
			if !strings.Contains(got, s) {
				t.Errorf("%d of %v: %q, want it to hold %q", c.n, c.in, got, s)
			}
		}
	}
}

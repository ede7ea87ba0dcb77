package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// doneHandler counts the run of each job and returns "done:<id>".
func (h *harness) doneHandler() Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		return []byte("done:" + j.ID), nil
	}
}

// TestSubmitBundle: 600 jobs in bundles, dealt round three workers, and 10
// more to a named one, each run once with its payload and cost, each
// completed once, and no record left (checkBatchCall); the workers count
// each job's completion, and a bundle records none of its own.
func TestSubmitBundle(t *testing.T) {
	_, workers := checkBatchCall(t, (*Client).SubmitBundle, "w1", "w2", "w3")
	var completed int64
	for _, w := range workers {
		completed += w.Stats().Completed
	}
	if completed != 610 {
		t.Errorf("workers counted %d completions, want 610", completed)
	}
}

// TestSubmitBundleDuplicate: a bundle holding an id completed before, and
// one queued in another record at once, records each id once: the first
// completion stays, the others are left out of their bundle's batch and
// counted as duplicates, and the bundle's other jobs complete.
func TestSubmitBundleDuplicate(t *testing.T) {
	h := newHarness(t)
	w := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			return []byte("run" + strconv.Itoa(h.runCount(j.ID)) + ":" + j.ID), nil
		})
	})
	ctx := context.Background()
	if err := h.client.Submit(ctx, "x", "job", nil); err != nil {
		t.Fatal(err)
	}
	if r := h.wait("x"); string(r.Value) != "run1:x" {
		t.Fatalf("x: %+v", r)
	}
	jobs := []BatchJob{{ID: "a", Type: "job"}, {ID: "x", Type: "job"}, {ID: "b", Type: "job"}}
	if err := h.client.SubmitBundle(ctx, jobs); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if r := h.wait(id); string(r.Value) != "run1:"+id {
			t.Errorf("%s: %+v", id, r)
		}
	}
	waitFor(t, 10*time.Second, "no record left", func() bool { return h.count("q.>") == 0 })
	if r := h.wait("x"); string(r.Value) != "run1:x" {
		t.Errorf("x's first completion replaced: %+v", r)
	}
	st := w.Stats()
	if st.Duplicates != 1 || st.Completed != 3 {
		t.Errorf("stats %+v, want 1 duplicate and 3 completions (x, a, b)", st)
	}
	if n := h.count("d.>"); n != 3 {
		t.Errorf("%d completions, want 3", n)
	}
}

// TestSubmitBundleInput: input is checked before anything is sent, and a
// repeated id within a call is refused, the first one queued.
func TestSubmitBundleInput(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	bad := []BatchJob{{ID: "ok", Type: "job"}, {ID: "no.dots", Type: "job"}}
	err := h.client.SubmitBundle(ctx, bad)
	if !errors.Is(err, ErrInvalidID) || !strings.Contains(err.Error(), "job 1") {
		t.Errorf("invalid id: %v, want ErrInvalidID naming job 1", err)
	}
	if err := h.client.SubmitBundle(ctx, []BatchJob{{ID: "a", Type: ""}}); !errors.Is(err, ErrInvalidType) {
		t.Errorf("invalid type: %v", err)
	}
	if err := h.client.SubmitBundle(ctx, []BatchJob{{ID: "a", Type: "job"}}, To("x.y")); !errors.Is(err, ErrInvalidName) {
		t.Errorf("invalid To: %v", err)
	}
	var be *BatchError
	if err := h.client.SubmitBundle(ctx, []BatchJob{{ID: "a", Type: "job"}}); !errors.As(err, &be) || !errors.Is(be.Errs[0], ErrNoWorkers) {
		t.Errorf("no workers: %v, want a BatchError with ErrNoWorkers", err)
	}
	if n := h.count("q.>"); n != 0 {
		t.Fatalf("%d records written by refused calls", n)
	}
	h.worker("w1", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	twice := []BatchJob{{ID: "a", Type: "job"}, {ID: "b", Type: "job"}, {ID: "a", Type: "job"}}
	err = h.client.SubmitBundle(ctx, twice)
	if !errors.As(err, &be) || be.Errs[0] != nil || be.Errs[1] != nil || !errors.Is(be.Errs[2], ErrDuplicateJob) {
		t.Fatalf("repeated id: %v, want ErrDuplicateJob for job 2 only", err)
	}
	h.waitAll(twice[:2])
}

// TestSubmitBundleSpawn: a bundle's job spawns a child, which is recorded
// with the bundle's completions (or stolen and recorded on its own).
func TestSubmitBundleSpawn(t *testing.T) {
	h := newHarness(t)
	h.worker("w1", func(w *Worker) {
		w.Handle("parent", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
			return []byte("done:" + j.ID), nil
		})
		w.Handle("job", h.doneHandler())
	})
	jobs := batchOf("p", 5, "parent")
	if err := h.client.SubmitBundle(context.Background(), jobs); err != nil {
		t.Fatal(err)
	}
	kids := make([]BatchJob, len(jobs))
	for i, j := range jobs {
		kids[i] = BatchJob{ID: j.ID + "-0"}
	}
	h.waitAll(append(jobs, kids...))
}

// TestSubmitBundleLent: bundles queued on a busy worker are borrowed by a
// thief, run there, and recorded once each.
func TestSubmitBundleLent(t *testing.T) {
	h := newHarness(t, WithSlots(1))
	h.busyLender(h.sleeper(100 * time.Millisecond))
	jobs := batchOf("a", 40, "job")
	if err := h.client.SubmitBundle(context.Background(), jobs, To("lender")); err != nil {
		t.Fatal(err)
	}
	thief := h.worker("thief", func(w *Worker) { w.Handle("job", h.doneHandler()) })
	for _, j := range jobs {
		h.wait(j.ID)
	}
	if thief.Stats().Completed == 0 {
		t.Errorf("the thief recorded no completion: %+v", thief.Stats())
	}
	h.waitAll(jobs)
}

// TestCutBundles: a call's jobs are cut into as few bundles as hold them,
// at most MaxBundleJobs jobs each, of sizes that differ by one at most; a
// bundle stays under the byte limit of a steal's reply.
func TestCutBundles(t *testing.T) {
	sizes := func(jobs, payload int) []int {
		recs := make([]record, jobs)
		send := make([]int, jobs)
		for i := range recs {
			recs[i] = record{ID: "j" + strconv.Itoa(i), Type: "t", Payload: make([]byte, payload)}
			send[i] = i
		}
		var out []int
		seen := map[string]bool{}
		for _, b := range cutBundles(recs, send) {
			var r record
			if err := json.Unmarshal(b.data, &r); err != nil || r.ID != b.id || len(r.Bundle) != len(b.idx) {
				t.Fatalf("bundle %s: %v, %d jobs for %d indexes", b.id, err, len(r.Bundle), len(b.idx))
			}
			if seen[b.id] || !strings.HasPrefix(b.id, bundleIDPrefix) || !validID(b.id) {
				t.Fatalf("bundle id %q repeated or invalid", b.id)
			}
			seen[b.id] = true
			out = append(out, len(b.idx))
		}
		return out
	}
	for _, c := range []struct {
		jobs, payload int
		want          string
	}{
		{100, 0, "[25 25 25 25]"},
		{5, 0, "[5]"},
		{33, 0, "[17 16]"},
		{70, 0, "[24 23 23]"},
		{4, 300 << 10, "[1 1 1 1]"},
	} {
		if got := fmt.Sprint(sizes(c.jobs, c.payload)); got != c.want {
			t.Errorf("%d jobs, %d bytes each: bundles of %s, want %s", c.jobs, c.payload, got, c.want)
		}
	}
	if got := sizes(1000, 0); len(got) != 32 || slices.Max(got) > MaxBundleJobs {
		t.Errorf("1000 jobs: %d bundles of %v, want 32 of at most %d", len(got), got, MaxBundleJobs)
	}
}

// TestKillWorkerBundles: a worker killed with SIGKILL in the middle of a
// bundle's job loses nothing: a survivor takes its bundles over, runs
// their jobs again (none of a bundle's completions is recorded before all
// of them are) and records each job once.
func TestKillWorkerBundles(t *testing.T) {
	h, kids, st := procCluster(t)
	ctx := context.Background()
	jobs := []BatchJob{{ID: "mid", Type: "sleep", Payload: []byte("hold")}}
	for i := range 30 {
		jobs = append(jobs, BatchJob{ID: "k" + strconv.Itoa(i), Type: "sleep", Payload: []byte("20")})
	}
	if err := h.client.SubmitBundle(ctx, jobs, To("w1")); err != nil {
		t.Fatal(err)
	}
	if id := st.next(t, "w1"); id != "mid" {
		t.Fatalf("w1 started %s", id)
	}
	if err := kids["w1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if r := h.wait(j.ID); r.Err != nil || r.Worker == "w1" {
			t.Fatalf("%s: recorded by %s, err %v", j.ID, r.Worker, r.Err)
		}
	}
	if r := h.wait("mid"); r.Attempt < 1 {
		t.Fatalf("mid recorded at attempt %d, want a run after the takeover", r.Attempt)
	}
	checkQuiet(t, h, len(jobs))
}

// TestPausedWorkerFencedBundle: a worker stopped (SIGSTOP) past its lease
// in the middle of a bundle is taken for dead; a survivor runs the bundle
// and records its jobs. Resumed, the old worker's completion of the
// bundle is refused as a whole: nothing it ran is recorded.
func TestPausedWorkerFencedBundle(t *testing.T) {
	h, kids, st := procCluster(t)
	ctx := context.Background()
	jobs := []BatchJob{{ID: "long", Type: "sleep", Payload: []byte("hold")},
		{ID: "b1", Type: "sleep", Payload: []byte("1")}, {ID: "b2", Type: "sleep", Payload: []byte("1")}}
	if err := h.client.SubmitBundle(ctx, jobs, To("w1")); err != nil {
		t.Fatal(err)
	}
	if id := st.next(t, "w1"); id != "long" {
		t.Fatalf("w1 started %s", id)
	}
	pid := kids["w1"].cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	recorded := map[string]string{}
	for _, j := range jobs {
		r := h.wait(j.ID)
		if r.Err != nil || r.Worker == "w1" || r.Attempt < 1 {
			t.Fatalf("%s: recorded by %s at attempt %d, err %v", j.ID, r.Worker, r.Attempt, r.Err)
		}
		recorded[j.ID] = r.Worker
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	ws := releaseLate(h, "w1", "long")
	if ws.Refused < 1 || ws.Fenced < 1 || ws.Completed != 0 {
		t.Fatalf("resumed w1: %+v, want the bundle's completion refused, a fence, and no recorded completion", ws)
	}
	for _, j := range jobs {
		if r := h.wait(j.ID); r.Worker != recorded[j.ID] {
			t.Errorf("%s: recorded by %s after w1 resumed, was %s", j.ID, r.Worker, recorded[j.ID])
		}
	}
	if n := h.count("d.>"); n != len(jobs) {
		t.Errorf("%d completions, want %d", n, len(jobs))
	}
}

// TestBundlesSpread: successive calls deal their bundles on from where the
// last call ended, so that calls of one bundle each spread over the
// workers without stealing.
func TestBundlesSpread(t *testing.T) {
	h := newHarness(t, WithStealMode(StealOff))
	ws := map[string]*Worker{}
	for _, n := range []string{"w1", "w2", "w3"} {
		ws[n] = h.worker(n, func(w *Worker) { w.Handle("job", h.doneHandler()) })
	}
	h.ready("w1", "w2", "w3")
	var all []BatchJob
	for c := range 6 {
		jobs := batchOf("c"+strconv.Itoa(c)+"-", 4, "job")
		if err := h.client.SubmitBundle(context.Background(), jobs); err != nil {
			t.Fatal(err)
		}
		all = append(all, jobs...)
	}
	h.waitAll(all)
	for n, w := range ws {
		if got := w.Stats().Completed; got != 8 {
			t.Errorf("%s completed %d jobs, want 8 (two bundles of 4)", n, got)
		}
	}
}

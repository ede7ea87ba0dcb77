package cluster

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// batchOf makes n jobs of type typ, ids <prefix>0..<prefix><n-1>.
func batchOf(prefix string, n int, typ string) []BatchJob {
	jobs := make([]BatchJob, n)
	for i := range jobs {
		jobs[i] = BatchJob{ID: prefix + strconv.Itoa(i), Type: typ, Payload: []byte(strconv.Itoa(i))}
	}
	return jobs
}

// waitAll waits for every job of jobs and checks that each completed
// once, ran once, and left no record.
func (h *harness) waitAll(jobs []BatchJob) {
	h.t.Helper()
	for _, j := range jobs {
		r := h.wait(j.ID)
		if r.Err != nil || string(r.Value) != "done:"+j.ID {
			h.t.Fatalf("%s: %+v", j.ID, r)
		}
	}
	waitFor(h.t, 10*time.Second, "no record left", func() bool { return h.count("q.>") == 0 })
	for _, j := range jobs {
		if n := h.runCount(j.ID); n != 1 {
			h.t.Errorf("%s ran %d times, want 1", j.ID, n)
		}
	}
}

// TestSubmitBatch: a batch of 600 jobs, more than two chunks, submitted to
// any worker and to a named one, runs each job once, with its cost and
// payload, and completes each once.
func TestSubmitBatch(t *testing.T) {
	checkBatchCall(t, (*Client).SubmitBatch, "w1", "w2")
}

// batchCall is SubmitBatch or SubmitBundle.
type batchCall func(*Client, context.Context, []BatchJob, ...SubmitOption) error

// checkBatchCall submits 600 jobs with submit to any of the workers
// named, 10 more to the second, and an empty call; it checks that each
// job ran once with its payload and cost (the job's, else the Cost
// option's) and was completed once, and returns the harness and workers.
func checkBatchCall(t *testing.T, submit batchCall, names ...string) (*harness, []*Worker) {
	h := newHarness(t)
	var costs [600]atomic.Int64
	var workers []*Worker
	for _, n := range names {
		workers = append(workers, h.worker(n, func(w *Worker) {
			w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
				h.ran(j.ID)
				if j.ID[0] == 'a' {
					i, _ := strconv.Atoi(j.ID[1:])
					if string(j.Payload) != j.ID[1:] {
						t.Errorf("%s: payload %q", j.ID, j.Payload)
					}
					costs[i].Store(j.Cost)
				}
				return []byte("done:" + j.ID), nil
			})
		}))
	}
	h.ready(names...)
	ctx := context.Background()
	jobs := batchOf("a", 600, "job")
	jobs[7].Cost = 3
	if err := submit(h.client, ctx, jobs, Cost(9)); err != nil {
		t.Fatal(err)
	}
	on := batchOf("b", 10, "job")
	if err := submit(h.client, ctx, on, To(names[1])); err != nil {
		t.Fatal(err)
	}
	if err := submit(h.client, ctx, nil); err != nil {
		t.Fatalf("empty call: %v", err)
	}
	h.waitAll(append(jobs, on...))
	if costs[7].Load() != 3 || costs[8].Load() != 9 {
		t.Errorf("costs %d and %d, want 3 (the job's) and 9 (the option's)", costs[7].Load(), costs[8].Load())
	}
	if n := h.count("d.>"); n != 610 {
		t.Errorf("%d completions, want 610", n)
	}
	return h, workers
}

// TestSubmitBatchChunksBySize: jobs whose records together pass a
// chunk's size go in several atomic batches. (Storing 600 KiB of records
// in one batch on a loaded machine with the race detector may take more
// than the default 2 s request timeout.)
func TestSubmitBatchChunksBySize(t *testing.T) {
	h := newHarness(t, WithRequestTimeout(10*time.Second))
	h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	jobs := batchOf("big", 12, "job")
	for i := range jobs {
		jobs[i].Payload = bytes.Repeat([]byte{'x'}, 200<<10) // 12 x 270 KiB of JSON: at least 4 chunks of 600 KiB
	}
	recs := make([]record, len(jobs))
	send := make([]int, len(jobs))
	for i, j := range jobs {
		recs[i], send[i] = record{ID: j.ID, Type: j.Type, Payload: j.Payload}, i
	}
	if n := len(chunkRecords(recs, send)); n < 4 {
		t.Errorf("%d chunks, want at least 4", n)
	}
	if err := h.client.SubmitBatch(context.Background(), jobs); err != nil {
		t.Fatal(err)
	}
	h.waitAll(jobs)
}

// TestSubmitBatchDuplicates: an id repeated in a call is queued once; a
// later batch with an id queued, one running and one completed refuses
// those, queues the others, and runs nothing twice.
func TestSubmitBatchDuplicates(t *testing.T) {
	h := newHarness(t)
	block, started := make(chan struct{}), make(chan struct{}, 1)
	h.worker("w1", func(w *Worker) {
		w.Handle("job", h.sleeper(0))
		w.Handle("block", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			started <- struct{}{}
			select {
			case <-block:
			case <-ctx.Done(): // the test failed before it closed block
				return nil, ctx.Err()
			}
			return []byte("done:" + j.ID), nil
		})
	}, WithSlots(1))
	ctx := context.Background()
	done := batchOf("d", 3, "job")
	if err := h.client.SubmitBatch(ctx, done); err != nil {
		t.Fatal(err)
	}
	h.waitAll(done)

	first := []BatchJob{{ID: "run", Type: "block"}, {ID: "x", Type: "job"}, {ID: "queued", Type: "job"}, {ID: "x", Type: "job"}}
	err := h.client.SubmitBatch(ctx, first)
	var be *BatchError
	if !errors.As(err, &be) || !errors.Is(err, ErrDuplicateJob) {
		t.Fatalf("batch repeating x: %v, want a *BatchError with ErrDuplicateJob", err)
	}
	for i, want := range []error{nil, nil, nil, ErrDuplicateJob} {
		if be.Errs[i] != want {
			t.Errorf("job %d (%s): %v, want %v", i, first[i].ID, be.Errs[i], want)
		}
	}
	<-started // "run" runs, holding the only slot: x and queued wait behind it

	second := []BatchJob{{ID: "new1", Type: "job"}, {ID: "run", Type: "job"}, {ID: "queued", Type: "job"},
		{ID: "d1", Type: "job"}, {ID: "new2", Type: "job"}}
	err = h.client.SubmitBatch(ctx, second)
	if !errors.As(err, &be) {
		t.Fatalf("second batch: %v, want a *BatchError", err)
	}
	for i, want := range []error{nil, ErrDuplicateJob, ErrDuplicateJob, ErrDuplicateJob, nil} {
		if !errors.Is(be.Errs[i], want) || (want == nil) != (be.Errs[i] == nil) {
			t.Errorf("job %d (%s): %v, want %v", i, second[i].ID, be.Errs[i], want)
		}
	}
	if !strings.Contains(err.Error(), "3 of 5 jobs not queued") {
		t.Errorf("error text %q", err)
	}
	// The same duplicates on another worker: the servers' duplicate
	// window and the ledger refuse them there too.
	h.worker("w2", func(w *Worker) { w.Handle("job", h.sleeper(0)) }, WithStealMode(StealOff))
	err = h.client.SubmitBatch(ctx, []BatchJob{{ID: "queued", Type: "job"}, {ID: "d2", Type: "job"}}, To("w2"))
	if !errors.As(err, &be) || be.Errs[0] != ErrDuplicateJob || be.Errs[1] != ErrDuplicateJob {
		t.Fatalf("duplicates sent to w2: %v", err)
	}
	// Completions older than the servers' duplicate window: only the
	// ledger tells. (Planted: the window is 2 minutes.)
	for _, id := range []string{"old1", "old2"} {
		if _, err := h.client.st.jobs.Create(ctx, dKey(id), []byte(`{"id":"`+id+`","worker":"gone"}`)); err != nil {
			t.Fatal(err)
		}
	}
	err = h.client.SubmitBatch(ctx, []BatchJob{{ID: "old1", Type: "job"}, {ID: "new3", Type: "job"}}, To("w2"))
	if !errors.As(err, &be) || be.Errs[0] != ErrDuplicateJob || be.Errs[1] != nil {
		t.Fatalf("batch with a job completed long ago: %v", err)
	}
	if err := h.client.Submit(ctx, "old2", "job", nil); err != ErrDuplicateJob {
		t.Fatalf("Submit of a job completed long ago: %v, want ErrDuplicateJob", err)
	}
	close(block)
	h.waitAll([]BatchJob{{ID: "x"}, {ID: "queued"}, {ID: "new1"}, {ID: "new2"}, {ID: "new3"}, {ID: "run"}})
	if n := h.runCount("old1") + h.runCount("old2"); n != 0 {
		t.Errorf("jobs completed long ago ran %d times", n)
	}
	for _, id := range []string{"d0", "d1", "d2"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want 1", id, n)
		}
	}
	if n := h.count("d.>"); n != 11 {
		t.Errorf("%d completions, want 11", n)
	}
}

// TestSubmitBatchInvalid: a call with one invalid job anywhere is refused
// whole, naming the job, and stores nothing.
func TestSubmitBatchInvalid(t *testing.T) {
	h := newHarness(t)
	h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		bad  BatchJob
		opts []SubmitOption
		want error
		text string
	}{
		{"id", BatchJob{ID: "a.b", Type: "job"}, nil, ErrInvalidID, "job 5"},
		{"type", BatchJob{ID: "t", Type: "has space"}, nil, ErrInvalidType, "job 5"},
		{"payload", BatchJob{ID: "p", Type: "job", Payload: make([]byte, defaultMaxPay+1)}, nil, ErrPayloadTooLarge, "job 5"},
		{"worker", BatchJob{ID: "ok", Type: "job"}, []SubmitOption{To("no.such")}, ErrInvalidName, "To"},
	} {
		jobs := append(batchOf("v", 5, "job"), tc.bad)
		jobs = append(jobs, batchOf("z", 5, "job")...)
		err := h.client.SubmitBatch(ctx, jobs, tc.opts...)
		var be *BatchError
		if !errors.Is(err, tc.want) || errors.As(err, &be) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want %v naming %q, not a *BatchError", tc.name, err, tc.want, tc.text)
		}
	}
	time.Sleep(100 * time.Millisecond) // anything sent would have reached the worker
	if n := h.count("q.>") + h.count("d.>"); n != 0 {
		t.Fatalf("%d keys stored by refused batches", n)
	}
}

// TestSubmitBatchNoWorkers: with no worker listening every job gets
// ErrNoWorkers; with ctx ended before the call, every job gets its error.
func TestSubmitBatchNoWorkers(t *testing.T) {
	h := newHarness(t)
	jobs := batchOf("n", 300, "job")
	err := h.client.SubmitBatch(context.Background(), jobs)
	var be *BatchError
	if !errors.As(err, &be) || len(be.Errs) != 300 || be.Errs[0] != ErrNoWorkers || be.Errs[299] != ErrNoWorkers {
		t.Fatalf("no workers: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = h.client.SubmitBatch(ctx, jobs)
	if !errors.As(err, &be) || !errors.Is(be.Errs[0], context.Canceled) || !errors.Is(be.Errs[299], context.Canceled) {
		t.Fatalf("ctx ended: %v", err)
	}
}

// TestSubmitBatchKillWorker: the worker process that a batch went to is
// killed with SIGKILL in the middle of its first job; a survivor takes the
// batch's records over, and every job completes once.
func TestSubmitBatchKillWorker(t *testing.T) {
	h, kids, st := procCluster(t)
	ctx := context.Background()
	jobs := append([]BatchJob{{ID: "mid", Type: "sleep", Payload: []byte("hold")}}, batchOf("k", 40, "sleep")...)
	for i := 1; i < len(jobs); i++ {
		jobs[i].Payload = []byte("20")
	}
	if err := h.client.SubmitBatch(ctx, jobs, To("w1")); err != nil {
		t.Fatal(err)
	}
	if id := st.next(t, "w1"); id != "mid" {
		t.Fatalf("w1 started %s", id)
	}
	if err := kids["w1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if r := h.wait(j.ID); r.Err != nil || r.Worker == "w1" && j.ID == "mid" {
			t.Fatalf("%s: recorded by %s, err %v", j.ID, r.Worker, r.Err)
		}
	}
	checkQuiet(t, h, len(jobs))
}

// TestSubmitBatchMessages: a flat job submitted in a batch of 100 costs
// about 6 server messages from submission to completion on one worker
// (memory storage), and about 7 with Submit: the records' atomic batch (1
// message in, its ack amortized), its echo on the worker's watch of its
// own records (1), and the completion (the batch DEL + PUT d.<id> and its
// ack, and the DEL's echo: 4). Submit's put has an ack of its own (1).
// Before clients wrote the records themselves, a submission went through
// a worker: 8 and 13 messages.
func TestSubmitBatchMessages(t *testing.T) {
	h := newHarness(t)
	w := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) }, WithStealMode(StealOff))
	h.ready("w1")
	time.Sleep(200 * time.Millisecond)
	count := func() int64 {
		v, err := h.e.NATS().Varz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return v.InMsgs + v.OutMsgs
	}
	const n = 500
	ctx := context.Background()
	m0 := count()
	for i := 0; i < n; i += 100 {
		if err := h.client.SubmitBatch(ctx, batchOf("m"+strconv.Itoa(i)+"-", 100, "job")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "completions", func() bool { return w.Stats().Completed == n })
	time.Sleep(1500 * time.Millisecond) // the expiring delete markers
	batch := float64(count()-m0) / n
	m0 = count()
	for i := range 100 {
		if err := h.client.Submit(ctx, "s"+strconv.Itoa(i), "job", nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "completions", func() bool { return w.Stats().Completed == n+100 })
	time.Sleep(1500 * time.Millisecond)
	single := float64(count()-m0) / 100
	t.Logf("server messages per flat job: %.2f in batches of 100, %.2f with Submit", batch, single)
	if batch > 6.8 || single > 8 {
		t.Errorf("%.2f server messages per job in batches of 100 and %.2f with Submit, want at most 6.8 and 8", batch, single)
	}
}

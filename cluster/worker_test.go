package cluster

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestSkewedStart: every job is submitted to w1; w2 and w3 steal. Every job
// completes exactly once (one run, one record), steals happened, and the
// cluster is never reported idle before the last completion is recorded.
//
// w1's jobs hold their slots (at most 20 s in all) until w2 and w3 have
// each started a job: with jobs of 3 ms, w1 could otherwise keep up with
// the submissions on a loaded machine (they are as slow as its jobs
// there) and leave nothing queued for a thief to take.
func TestSkewedStart(t *testing.T) {
	const n = 300
	h := newHarness(t, WithLease(time.Second), WithSlots(2))
	var started [3]atomic.Int64 // jobs started on w1, w2, w3
	thieves := func() bool { return started[1].Load() > 0 && started[2].Load() > 0 }
	holdUntil := time.Now().Add(20 * time.Second)
	for i, name := range []string{"w1", "w2", "w3"} {
		h.worker(name, func(w *Worker) {
			sleep := h.sleeper(3 * time.Millisecond)
			w.Handle("sleep", func(ctx context.Context, j *Job) ([]byte, error) {
				started[i].Add(1)
				for i == 0 && !thieves() && time.Now().Before(holdUntil) && ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
				return sleep(ctx, j)
			})
		})
	}
	// Sample Idle throughout: each true answer is checked against the
	// ledger read after it (the ledger only grows, so a short count is a
	// real violation). Only submissions acknowledged before the Idle call
	// began count: before them the cluster may truly be idle.
	var early, samples, acked atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for i := 0; i < 2000; i++ {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			want := acked.Load()
			if idle, _ := h.client.Idle(context.Background()); idle {
				samples.Add(1)
				if int64(h.count("d.>")) < want {
					early.Add(1)
				}
			}
		}
	}()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "j" + strconv.Itoa(i)
		if err := h.client.Submit(context.Background(), ids[i], "sleep", nil, To("w1")); err != nil {
			t.Fatalf("submit %s: %v", ids[i], err)
		}
		acked.Add(1)
	}
	byWorker := map[string]int{}
	for _, id := range ids {
		r := h.wait(id)
		if r.Err != nil || string(r.Value) != "done:"+id {
			t.Fatalf("%s: %v %q", id, r.Err, r.Value)
		}
		byWorker[r.Worker]++
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.client.WaitIdle(ctx); err != nil {
		t.Fatalf("WaitIdle after every job completed: %v", err)
	}
	close(stop)
	<-sampled
	if early.Load() > 0 {
		t.Fatalf("Idle reported true %d times before every job had completed", early.Load())
	}
	for _, id := range ids {
		if c := h.runCount(id); c != 1 {
			t.Errorf("%s ran %d times", id, c)
		}
	}
	if d, q := h.count("d.>"), h.count("q.>"); d != n || q != 0 {
		t.Fatalf("ledger holds %d completions (want %d) and %d live records (want 0)", d, n, q)
	}
	if byWorker["w2"] == 0 || byWorker["w3"] == 0 {
		t.Fatalf("completions by worker %v: w2 and w3 should have stolen", byWorker)
	}
	t.Logf("completions by worker %v; idle samples %d", byWorker, samples.Load())
}

// TestCloseHandsOver: a worker that closes starts no new job, and leaves
// its queued jobs, and the job its handler gave up on, to a survivor, which
// takes them over at once (no wait for the lease): every job completes, on
// the survivor.
func TestCloseHandsOver(t *testing.T) {
	h := newHarness(t, WithLease(30*time.Second), WithSlots(1)) // a takeover before 30 s proves Close let go
	started := make(chan struct{}, 1)
	var starts atomic.Int64
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			starts.Add(1)
			select {
			case started <- struct{}{}:
			default:
			}
			<-ctx.Done() // runs until the worker closes
			return nil, ctx.Err()
		})
	}, WithStealMode(StealOff))
	h.worker("w2", func(w *Worker) { w.Handle("job", h.sleeper(0)) }, WithStealMode(StealOff))
	ids := h.submitN(5, "job", To("w1"))
	<-started
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	if n := starts.Load(); n != 1 {
		t.Fatalf("w1 started %d jobs, want 1: no job may start once Close began", n)
	}
	for _, id := range ids {
		if r := h.wait(id); r.Err != nil || r.Worker != "w2" || r.Attempt != 1 {
			t.Fatalf("%s: recorded by %s at attempt %d, err %v", id, r.Worker, r.Attempt, r.Err)
		}
	}
}

// TestCompletedCountsOwnOnly: Stats.Completed counts the completions this
// worker recorded, not another run's that reads the same. The ledger is
// given, before the job completes here, the completion another run of it
// on a worker of the same name would write (a run of this worker before
// it fenced itself, say): same worker, attempt, hops and code. Two cases:
// a child held in memory, whose completion is refused as already done;
// and a job with a record, whose record is then found gone.
func TestCompletedCountsOwnOnly(t *testing.T) {
	h := newHarness(t, WithLease(3*time.Second), WithStealMode(StealOff))
	release := make(chan struct{})
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			if j.ID == "root" {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			gate(ctx, release)
			return nil, nil
		})
	}, WithSlots(3))
	h.ready("w1")
	ctx := context.Background()
	for _, id := range []string{"root", "x"} {
		if err := h.client.Submit(ctx, id, "job", nil, To("w1")); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 10*time.Second, "root, root-0 and x to run", func() bool {
		return h.runCount("root") == 1 && h.runCount("root-0") == 1 && h.runCount("x") == 1
	})
	for _, id := range []string{"root-0", "x"} {
		other, _ := json.Marshal(&outcome{ID: id, Type: "job", Worker: "w1"})
		if _, err := h.client.st.jobs.Create(ctx, dKey(id), other); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.client.st.jobs.Delete(ctx, qKey("w1", "x")); err != nil {
		t.Fatal(err)
	}
	close(release)
	waitFor(t, 10*time.Second, "the three completions to be answered", func() bool {
		s := w1.Stats()
		return s.Completed+s.Duplicates+s.Refused >= 3
	})
	want := WorkerStats{Completed: 1, Duplicates: 1, Refused: 1}
	if s := w1.Stats(); s != want {
		t.Fatalf("stats %+v, want %+v: only root's completion is this worker's", s, want)
	}
	checkQuiet(t, h, 3)
	for _, id := range []string{"root", "root-0", "x"} {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
}

package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestMemTree: with spawned jobs kept in memory, a tree spread over three
// workers by loans runs every job, the root's Wait returns only once they
// all ran, and the servers store the root's writes alone.
func TestMemTree(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(2), WithSpawnRecords(false))
	var ws []*Worker
	tree := fanTree(h, 2, false)
	slowLeaves := func(ctx context.Context, j *Job) ([]byte, error) {
		if string(j.Payload) == "0" {
			time.Sleep(time.Millisecond) // 512 leaves: long enough for thieves to borrow
		}
		return tree(ctx, j)
	}
	for _, n := range []string{"w1", "w2", "w3"} {
		ws = append(ws, h.worker(n, func(w *Worker) { w.Handle("tree", slowLeaves) }))
	}
	h.ready("w1", "w2", "w3")
	const depth = 9 // 1023 jobs
	before := jobsWrites(t, h)
	if err := h.client.Submit(context.Background(), "r", "tree", []byte(strconv.Itoa(depth)), To("w1")); err != nil {
		t.Fatal(err)
	}
	h.wait("r")
	ids := fanIDs("r", 2, depth)
	for _, id := range ids {
		if n := h.runCount(id); n != 1 {
			t.Fatalf("%s ran %d times when the root's Wait returned, want 1", id, n)
		}
	}
	checkQuiet(t, h, 1)
	var lent, borrowed int64
	for _, w := range ws {
		s := w.Stats()
		lent, borrowed = lent+s.Given, borrowed+s.Stolen
	}
	if lent == 0 || borrowed != lent {
		t.Fatalf("%d jobs lent, %d borrowed: want some, and as many borrowed as lent", lent, borrowed)
	}
	// The root: its record (and the delete that expires) and its
	// completion; nothing for the 1022 children.
	if writes := jobsWrites(t, h) - before; writes > 4 {
		t.Fatalf("%d writes to the jobs bucket for a tree of %d jobs, want at most 4", writes, len(ids))
	}
	t.Logf("%d jobs, %d lent", len(ids), lent)
}

// TestMemRootWaitsForSubtree: a root whose handler returned is not
// complete while a job spawned under it still runs, here or on a thief.
func TestMemRootWaitsForSubtree(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithSpawnRecords(false))
	release := make(chan struct{})
	var leafDone atomic.Bool
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch j.ID {
		case "root":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		case "root-0":
			if _, err := j.Spawn(ctx, "job", nil); err != nil {
				return nil, err
			}
		default:
			gate(ctx, release)
			leafDone.Store(true)
		}
		return []byte(j.ID), nil
	}
	h.worker("w1", func(w *Worker) { w.Handle("job", handler) })
	h.worker("w2", func(w *Worker) { w.Handle("job", handler) })
	h.ready("w1", "w2")
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the leaf to start", func() bool { return h.runCount("root-0-0") == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := h.client.Wait(ctx, "root")
	cancel()
	if err == nil {
		t.Fatal("the root's Wait returned while a job of its tree was running")
	}
	close(release)
	if r := h.wait("root"); r.Err != nil || string(r.Value) != "root" {
		t.Fatalf("root: %+v", r)
	}
	if !leafDone.Load() {
		t.Fatal("the root completed before its leaf returned")
	}
	checkQuiet(t, h, 1)
}

// TestMemChildFailures: jobs spawned in memory that fail or panic are
// counted (WorkerStats.ChildFailures) and nothing records them; the
// others run with the Job each was spawned with, and the root completes
// with its own result once they all ran.
func TestMemChildFailures(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(2), WithSpawnRecords(false), WithStealMode(StealOff))
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch j.ID {
		case "root":
			for i := range 4 {
				if _, err := j.Spawn(ctx, "job", []byte(strconv.Itoa(i))); err != nil {
					return nil, err
				}
			}
			return []byte("root"), nil
		case "root-0":
			return nil, errors.New("boom")
		case "root-1":
			panic("boom")
		}
		if want := j.ID[len("root-"):]; string(j.Payload) != want || j.Type != "job" {
			return nil, fmt.Errorf("job %s sees payload %q, type %q", j.ID, j.Payload, j.Type)
		}
		return nil, nil
	}
	w := h.worker("w1", func(w *Worker) { w.Handle("job", handler) })
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "root", "job", nil); err != nil {
		t.Fatal(err)
	}
	if r := h.wait("root"); r.Err != nil || string(r.Value) != "root" {
		t.Fatalf("root: %+v", r)
	}
	for i := range 4 {
		if id := "root-" + strconv.Itoa(i); h.runCount(id) != 1 {
			t.Fatalf("%s ran %d times, want 1", id, h.runCount(id))
		}
	}
	if s := w.Stats(); s.MemRuns != 4 || s.ChildFailures != 2 {
		t.Fatalf("MemRuns %d, ChildFailures %d: want 4 and 2", s.MemRuns, s.ChildFailures)
	}
	checkQuiet(t, h, 1)
}

// TestLoanThiefLost: a thief that dies holding borrowed jobs (its
// connection gone, its lease left to expire) has them taken back by the
// lender, which runs them again; the root completes once.
func TestLoanThiefLost(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithSpawnRecords(false))
	hold := make(chan struct{})
	defer close(hold)
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" {
			for range 8 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
		if j.Worker() == "thief" {
			gate(ctx, hold) // never returns while the test runs
		}
		time.Sleep(100 * time.Millisecond)
		return nil, nil
	}
	victim := h.worker("victim", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("victim")
	// The root spawns 8 children and returns at once; the victim runs
	// one child at a time, so most wait in its deque for the thief.
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("victim")); err != nil {
		t.Fatal(err)
	}
	nc := h.conn()
	thief := h.workerOn(nc, "thief", func(w *Worker) { w.Handle("job", handler) })
	waitFor(t, 10*time.Second, "a loan", func() bool { return thief.Stats().Stolen > 0 })
	nc.Close() // the thief is gone: no return, no answer to audits
	if r := h.wait("root"); r.Err != nil {
		t.Fatalf("root: %+v", r)
	}
	if victim.Stats().TakenBack == 0 {
		t.Fatal("the root completed, yet the victim took nothing back")
	}
	for i := range 8 {
		id := "root-" + strconv.Itoa(i)
		if h.runCount(id) == 0 {
			t.Fatalf("%s never ran", id)
		}
	}
	if d := h.count("d.>"); d != 1 {
		t.Fatalf("%d completions recorded, want the root's alone", d)
	}
}

// TestMoveSkipsBorrowed: a worker holding borrowed jobs (their records
// under the lender's name) and in-memory ones is asked by Client.Steal to
// move jobs to a third worker. It has no record of its own to move for
// them: they stay queued, and every job still runs and completes.
func TestMoveSkipsBorrowed(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.Worker() != "third" {
			gate(ctx, release) // every slot of lender and borrower stays taken
		}
		return []byte(j.Worker()), nil
	}
	lender := h.worker("lender", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("lender")
	ids := submitTo(t, h, "s", 8, "lender")
	// The borrower has one slot: it borrows, runs one job and keeps the
	// rest of the loan queued.
	borrower := h.worker("borrower", func(w *Worker) { w.Handle("job", handler) })
	waitFor(t, 10*time.Second, "a loan", func() bool { return borrower.Queued() > 0 })
	h.worker("third", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("third")
	res, err := h.client.Steal(context.Background(), "third", "borrower", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 0 {
		t.Fatalf("moved %v from a worker that holds only borrowed jobs", res.Jobs)
	}
	close(release)
	for _, id := range ids {
		if r := h.wait(id); r.Err != nil {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	checkQuiet(t, h, len(ids))
	if lender.Stats().Given == 0 {
		t.Fatal("nothing was lent")
	}
}

// TestLenderCloseWithLoanOut: a lender closes (gracefully) while a job
// with a record it lent runs on a thief. Close waits for the loan to come
// back before it gives up its lease: the job runs once, on the thief.
// Without the wait, the lease went at once, a survivor took the record
// over and the job ran a second time, though no worker died.
func TestLenderCloseWithLoanOut(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	gLent := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		switch {
		case j.ID == "busy" && j.Worker() == "lender":
			<-ctx.Done()
			return nil, ctx.Err()
		case j.ID == "lent" && h.runCount("lent") == 1:
			gate(ctx, gLent)
		}
		return []byte(j.Worker()), nil
	}
	lender := h.busyLender(handler)
	h.lendOne(handler, WithSlots(2))
	// The thief finishes the job while the lender's Close waits.
	time.AfterFunc(300*time.Millisecond, func() { close(gLent) })
	lender.Close()
	h.wait("busy")
	h.wait("lent")
	if n := h.runCount("lent"); n != 1 {
		t.Fatalf("lent ran %d times; no worker died", n)
	}
}

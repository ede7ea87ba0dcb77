package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"
)

// jobsWrites returns how many messages the jobs bucket's stream has
// stored so far (its last sequence): every put, delete and completion.
func jobsWrites(t *testing.T, h *harness) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := h.client.st.js.Stream(ctx, "KV_"+h.client.cfg.jobsBucket())
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info.State.LastSeq
}

// fanTree spawns fanout children of depth payload-1 (payload is the
// depth in decimal) and returns; with join set it first waits for each
// child's completion, as a fork-join program does.
func fanTree(h *harness, fanout int, join bool) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		d, _ := strconv.Atoi(string(j.Payload))
		var kids []string
		for i := 0; d > 0 && i < fanout; i++ {
			id, err := j.Spawn(ctx, "tree", []byte(strconv.Itoa(d-1)))
			if err != nil {
				return nil, err
			}
			kids = append(kids, id)
		}
		for _, id := range kids {
			if !join {
				break
			}
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			_, err := h.client.Wait(wctx, id)
			cancel()
			if err != nil {
				return nil, err
			}
		}
		return []byte(j.Worker()), nil
	}
}

func fanIDs(root string, fanout, d int) []string {
	out := []string{root}
	for i := 0; d > 0 && i < fanout; i++ {
		out = append(out, fanIDs(root+"-"+strconv.Itoa(i), fanout, d-1)...)
	}
	return out
}

// TestLocalTree: a tree of spawns on two workers that steal from each
// other completes with exactly one completion per id, each job run once,
// and no record left, with local spawn and without.
func TestLocalTree(t *testing.T) {
	for _, local := range []bool{true, false} {
		t.Run("local="+strconv.FormatBool(local), func(t *testing.T) {
			h := newHarness(t, WithLease(time.Second), WithSlots(2), WithLocalSpawn(local))
			for _, n := range []string{"w1", "w2"} {
				h.worker(n, func(w *Worker) { w.Handle("tree", fanTree(h, 2, false)) })
			}
			h.ready("w1", "w2")
			const depth = 6 // 127 jobs
			before := jobsWrites(t, h)
			if err := h.client.Submit(context.Background(), "r", "tree", []byte(strconv.Itoa(depth)), To("w1")); err != nil {
				t.Fatal(err)
			}
			ids := fanIDs("r", 2, depth)
			stolen := 0
			for _, id := range ids {
				if r := h.wait(id); r.Err != nil || h.runCount(id) != 1 {
					t.Fatalf("%s: err %v, ran %d times", id, r.Err, h.runCount(id))
				} else if r.Hops > 0 {
					stolen++
				}
			}
			checkQuiet(t, h, len(ids))
			t.Logf("%d jobs, %d of them stolen, %d writes to the jobs bucket", len(ids), stolen, jobsWrites(t, h)-before)
		})
	}
}

// TestLocalSpawnWrites: a fork-join tree of N jobs on one worker (each job
// waits for its children before it returns) costs about one write per job
// with local spawn: a child's completion only. Written at spawn, each child
// costs three (its record, its delete, its completion).
func TestLocalSpawnWrites(t *testing.T) {
	const depth = 3 // 15 jobs; every waiting parent holds a slot
	n := uint64(len(fanIDs("r", 2, depth)))
	for _, local := range []bool{true, false} {
		t.Run("local="+strconv.FormatBool(local), func(t *testing.T) {
			h := newHarness(t, WithLease(time.Second), WithSlots(16), WithLocalSpawn(local), WithStealMode(StealOff))
			h.worker("w1", func(w *Worker) { w.Handle("tree", fanTree(h, 2, true)) })
			h.ready("w1")
			before := jobsWrites(t, h)
			if err := h.client.Submit(context.Background(), "r", "tree", []byte(strconv.Itoa(depth))); err != nil {
				t.Fatal(err)
			}
			h.wait("r")
			checkQuiet(t, h, int(n))
			writes := jobsWrites(t, h) - before
			t.Logf("%d jobs, %d writes to the jobs bucket", n, writes)
			switch {
			case local && writes > n+3: // the root: its record, delete, expiring delete (see expireDeletes) and completion
				t.Fatalf("local spawn: %d writes for %d jobs, want at most %d", writes, n, n+3)
			case !local && writes < 3*n:
				t.Fatalf("spawn written at once: %d writes for %d jobs, want at least %d", writes, n, 3*n)
			}
		})
	}
}

// gate blocks a handler until it is closed (at most 20 s, or until the
// worker closes).
func gate(ctx context.Context, c <-chan struct{}) {
	select {
	case <-c:
	case <-ctx.Done():
	case <-time.After(20 * time.Second):
	}
}

// TestStealLocalChildren: children held only in the spawning worker's
// memory (their parent still running) are stolen with records written
// under the thief's name in the steal's batch; the victim's records are
// untouched, and every job completes once.
func TestStealLocalChildren(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" {
			for range 20 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
		}
		gate(ctx, release)
		return []byte(j.Worker()), nil
	}
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to spawn its children", func() bool { return w1.Queued() == 20 })
	if q := h.count("q.>"); q != 1 {
		t.Fatalf("%d records while the children wait on w1, want 1 (the root's)", q)
	}
	w2 := h.worker("w2", func(w *Worker) { w.Handle("job", handler) })
	waitFor(t, 10*time.Second, "w2 to steal", func() bool { return w2.Stats().Stolen > 0 })
	stolen := int(w2.Stats().Stolen)
	if q1, q2 := h.count("q.w1.>"), h.count("q.w2.>"); q1 != 1 || q2 != stolen {
		t.Fatalf("after w2 stole %d: %d records on w1 (want the root's), %d on w2 (want %d)", stolen, q1, q2, stolen)
	}
	close(release)
	ids := append([]string{"root"}, fanIDs("root", 20, 1)[1:]...)
	onW2 := 0
	for _, id := range ids {
		r := h.wait(id)
		if r.Err != nil || h.runCount(id) != 1 {
			t.Fatalf("%s: err %v, ran %d times", id, r.Err, h.runCount(id))
		}
		if r.Worker == "w2" {
			onW2++
		}
	}
	checkQuiet(t, h, len(ids))
	if onW2 < stolen {
		t.Fatalf("%d jobs recorded by w2, which stole %d", onW2, stolen)
	}
}

// TestCompleteManyChildren: a parent that completes with more children
// pending than one batch can hold (the servers take at most 1000 messages
// a batch) writes their records in several batches, then its completion.
func TestCompleteManyChildren(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithStealMode(StealOff))
	const kids = 1100
	release := make(chan struct{})
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			if j.ID != "root" {
				gate(ctx, release)
				return nil, nil
			}
			for range kids {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
	})
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "root", "job", nil); err != nil {
		t.Fatal(err)
	}
	h.wait("root")
	// One child runs (held at the gate), the others are queued: all of
	// them have records now.
	if q := h.count("q.w1.>"); q != kids {
		t.Fatalf("%d records after the root completed, want %d", q, kids)
	}
	close(release)
	checkQuiet(t, h, kids+1)
	if s := w1.Stats(); s.Completed != kids+1 || s.Duplicates != 0 || s.Refused != 0 {
		t.Fatalf("w1: %+v", s)
	}
}

// TestLocalChildrenCount: children without records count in the worker's
// queue (which thieves read from its heartbeat) and keep it busy.
func TestLocalChildrenCount(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithStealMode(StealOff))
	release := make(chan struct{})
	h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			if j.ID == "root" {
				for range 3 {
					if _, err := j.Spawn(ctx, "job", nil); err != nil {
						return nil, err
					}
				}
				gate(ctx, release)
			}
			return nil, nil
		})
	})
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "root", "job", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the heartbeat to show 3 queued", func() bool {
		e, err := h.client.st.workers.Get(context.Background(), "w1")
		var b beat
		return err == nil && json.Unmarshal(e.Value(), &b) == nil && b.Queue == 3 && b.Running == 1 && b.Busy
	})
	if idle, err := h.client.Idle(context.Background()); idle || err != nil {
		t.Fatalf("Idle = %v, %v while 3 children wait", idle, err)
	}
	close(release)
	checkQuiet(t, h, 4)
}

// TestStealFencedByAnchor: a steal of children held without records is
// conditional on their anchor's record: once that record has moved on (as
// a takeover of a paused victim moves it), the victim's steal batch is
// refused and writes nothing; the children stay with the victim and every
// job still completes once.
func TestStealFencedByAnchor(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithStealMode(StealOff))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		if j.ID == "root" && j.Attempt == 0 && len(j.StolenFrom) == 0 {
			for range 4 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil && err != ErrFenced {
					return nil, err
				}
			}
			gate(ctx, release)
		}
		return nil, nil
	}
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", handler) })
	h.worker("w2", func(w *Worker) { w.Handle("job", handler) })
	h.ready("w1", "w2")
	ctx := context.Background()
	if err := h.client.Submit(ctx, "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to spawn", func() bool { return w1.Queued() == 4 })
	// Write the root's record again: the revision w1's children are
	// fenced on is stale, as after a takeover.
	e, err := h.client.st.get(ctx, qKey("w1", "root"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.st.commit(ctx, []op{{key: qKey("w1", "root"), value: e.Value(), check: true, expect: e.Revision()}}); err != nil {
		t.Fatal(err)
	}
	res, err := h.client.Steal(ctx, "w2", "w1", 0)
	if err != nil || len(res.Jobs) != 0 || h.count("q.w2.>") != 0 {
		t.Fatalf("steal with a stale anchor: %+v, %v, %d records on w2", res, err, h.count("q.w2.>"))
	}
	close(release)
	checkQuiet(t, h, 5)
}

// TestFencedRunningChild: a worker cut off past its lease while it runs a
// job and the child it spawned (held in its memory) is taken for dead; a
// survivor re-runs the job, which spawns the same child id, and records
// both. When the cut-off worker comes back, its completions of the two are
// refused (the child's finds d.<id> present), it fences itself, and the
// ledger holds one completion each; with local spawn and without.
func TestFencedRunningChild(t *testing.T) {
	for _, local := range []bool{true, false} {
		t.Run("local="+strconv.FormatBool(local), func(t *testing.T) { fencedRunningChild(t, local) })
	}
}

func fencedRunningChild(t *testing.T, local bool) {
	h := newHarness(t, WithLease(time.Second), WithStealMode(StealOff), WithLocalSpawn(local))
	p := newProxy(t, hostPort(h.e.URL()))
	release := make(chan struct{})
	started := make(chan string, 4)
	w1 := h.workerOn(tcpConn(t, p.url()), "w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			if j.ID == "root" {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			started <- j.ID
			gate(ctx, release)
			return []byte("w1"), nil
		})
	}, WithSlots(2))
	w2 := h.worker("w2", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			if j.ID == "root" {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			return []byte("w2"), nil
		})
	})
	h.ready("w1", "w2")
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // root and root-0 both run on w1
		<-started
	}
	p.blackhole(true, true)
	for _, id := range []string{"root", "root-0"} {
		if r := h.wait(id); r.Worker != "w2" {
			t.Fatalf("%s recorded by %s, want w2 after the takeover", id, r.Worker)
		}
	}
	p.heal()
	waitFor(t, 10*time.Second, "w1 to fence itself", func() bool { return w1.Stats().Fenced >= 1 })
	close(release)
	waitFor(t, 10*time.Second, "w1's late completions to be answered", func() bool {
		s := w1.Stats()
		return s.Refused+s.Duplicates+s.Completed >= 2
	})
	if s := w1.Stats(); s.Completed != 0 {
		t.Fatalf("w1 after the partition: %+v, want both completions refused", s)
	}
	checkQuiet(t, h, 2)
	if s := w2.Stats(); s.Completed != 2 {
		t.Fatalf("w2: %+v, want its two completions recorded", s)
	}
}

// TestSpawnAfterFence: a worker that fences itself (its lease lost, say in
// a restart of the servers) while it runs a child held in memory, whose
// anchor's record did not move, still spawns from that child: Spawn asks
// the servers instead of refusing, and every job completes.
func TestSpawnAfterFence(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(2), WithStealMode(StealOff))
	release, rootDone := make(chan struct{}), make(chan struct{})
	spawned := make(chan error, 2)
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			switch j.ID {
			case "root": // the anchor: runs until the test lets it end
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
				gate(ctx, rootDone)
			case "root-0": // held in memory, runs through the fence
				gate(ctx, release)
				_, err := j.Spawn(ctx, "job", nil)
				spawned <- err
				return nil, err
			}
			return []byte(j.ID), nil
		})
	})
	h.ready("w1")
	if err := h.client.Submit(context.Background(), "root", "job", nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root and root-0 to run", func() bool {
		ws, _ := h.client.Workers(context.Background())
		return len(ws) == 1 && ws[0].Running == 2
	})
	if err := h.client.st.workers.Delete(context.Background(), "w1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "w1 to fence itself", func() bool { return w1.Stats().Fenced >= 1 })
	close(release)
	if err := <-spawned; err != nil {
		t.Fatalf("spawn after a fence that moved nothing: %v", err)
	}
	close(rootDone)
	for _, id := range []string{"root", "root-0", "root-0-0"} {
		if r := h.wait(id); r.Err != nil {
			t.Fatalf("%s: %v", id, r.Err)
		}
	}
	checkQuiet(t, h, 3)
}

// TestFencedChildGivesUp: a child held in the memory of a worker that was
// taken for dead spawns after its anchor moved: Spawn returns ErrFenced,
// its handler gives up with that error, and nothing is recorded for that
// run (a job without a record could still write its completion): the
// re-run on the survivor is the one recorded, without error.
func TestFencedChildGivesUp(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithStealMode(StealOff))
	p := newProxy(t, hostPort(h.e.URL()))
	rel1, rel2 := make(chan struct{}), make(chan struct{})
	started := make(chan string, 4)
	spawned := make(chan error, 1)
	handler := func(name string, rel <-chan struct{}) Handler {
		return func(ctx context.Context, j *Job) ([]byte, error) {
			if j.ID == "root" {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
			started <- name + " " + j.ID
			gate(ctx, rel)
			if j.ID == "root-0" && name == "w1" {
				_, err := j.Spawn(ctx, "job", nil)
				spawned <- err
				return nil, err
			}
			return []byte(name), nil
		}
	}
	w1 := h.workerOn(tcpConn(t, p.url()), "w1", func(w *Worker) { w.Handle("job", handler("w1", rel1)) }, WithSlots(2))
	h.worker("w2", func(w *Worker) { w.Handle("job", handler("w2", rel2)) }, WithSlots(2))
	h.ready("w1", "w2")
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // root and root-0 run on w1
		<-started
	}
	p.blackhole(true, true)
	for range 2 { // root taken over by w2, which spawns root-0 again
		if s := <-started; s[:2] != "w2" {
			t.Fatalf("%s started again, want on w2", s)
		}
	}
	p.heal()
	waitFor(t, 10*time.Second, "w1 to fence itself", func() bool { return w1.Stats().Fenced >= 1 })
	close(rel1)
	if err := <-spawned; !errors.Is(err, ErrFenced) {
		t.Fatalf("spawn from root-0 on w1 after its anchor moved: %v, want ErrFenced", err)
	}
	close(rel2)
	for _, id := range []string{"root", "root-0"} {
		if r := h.wait(id); r.Err != nil || r.Worker != "w2" {
			t.Fatalf("%s: recorded by %s, err %v; want w2's run, without error", id, r.Worker, r.Err)
		}
	}
	checkQuiet(t, h, 2)
}

// TestKillMidTree: a worker process killed with SIGKILL in the middle of a
// tree of spawning jobs loses none of them. Children it held only in
// memory are spawned again by the re-run of their anchor (the nearest
// ancestor with a record), and children of completed parents have
// records; every job of the tree completes exactly once and no record is
// left.
func TestKillMidTree(t *testing.T) {
	h, kids, _ := procCluster(t)
	const depth = 7 // 255 jobs of 10 ms
	ids := treeIDs("t", depth)
	if err := h.client.Submit(context.Background(), "t", "tree", []byte(strconv.Itoa(depth)), To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "30 completions", func() bool { return h.count("d.>") >= 30 })
	if err := kids["w1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	atKill := h.count("d.>")
	byW1 := 0
	for _, id := range ids {
		r := h.wait(id)
		if r.Err != nil {
			t.Fatalf("%s: recorded by %s, err %v", id, r.Worker, r.Err)
		}
		if r.Worker == "w1" {
			byW1++
		}
	}
	t.Logf("killed w1 at %d of %d completions; w1 recorded %d", atKill, len(ids), byW1)
	if atKill >= len(ids) || byW1 == 0 {
		t.Fatalf("the kill did not land mid-tree: %d of %d completed, %d by w1", atKill, len(ids), byW1)
	}
	checkQuiet(t, h, len(ids))
}

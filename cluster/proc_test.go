package cluster

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// procCluster starts an embedded server listening on loopback and three
// worker processes w1..w3 (lease 1 s, one slot each).
func procCluster(t *testing.T) (*harness, map[string]*child, *starts) {
	if testing.Short() {
		t.Skip("process tests start worker processes and wait out leases; skipped with -short")
	}
	h := newHarness(t, WithLease(time.Second))
	st := watchStarts(t, h.conn())
	kids := map[string]*child{}
	for _, n := range []string{"w1", "w2", "w3"} {
		kids[n] = startChild(t, h.e.URL(), n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for { // all three hold a lease
		names, _ := h.client.members(ctx)
		if len(names) == 3 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("workers registered: %v", names)
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.ready("w1", "w2", "w3") // subscribed: the lease is taken first
	return h, kids, st
}

// TestKillWorker: a worker killed with SIGKILL in the middle of a job loses
// nothing. Its lease expires, a survivor takes its records over, and every
// job completes exactly once; the job it was running runs again elsewhere.
func TestKillWorker(t *testing.T) {
	h, kids, st := procCluster(t)
	ctx := context.Background()
	// "mid" holds its run on w1 (see holdRun), so the kill lands in the
	// middle of it. (It ran for 2 s, which the 30 submissions below took
	// on a loaded machine: w1 then recorded it.)
	if err := h.client.Submit(ctx, "mid", "sleep", []byte("hold"), To("w1")); err != nil {
		t.Fatal(err)
	}
	if id := st.next(t, "w1"); id != "mid" {
		t.Fatalf("w1 started %s", id)
	}
	const n = 30
	ids := []string{"mid"}
	for i := range n {
		id := "k" + strconv.Itoa(i)
		if err := h.client.Submit(ctx, id, "sleep", []byte("40"), To("w1")); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := kids["w1"].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if r := h.wait(id); r.Err != nil {
			t.Fatalf("%s: recorded by %s, err %v", id, r.Worker, r.Err)
		}
	}
	r := h.wait("mid")
	if runs := st.of("mid"); len(runs) < 2 || runs[0] != "w1" || r.Worker == "w1" || r.Attempt < 1 {
		t.Fatalf("job killed mid-run: started on %v, recorded by %s at attempt %d", runs, r.Worker, r.Attempt)
	}
	checkQuiet(t, h, n+1)
}

// releaseLate ends the held run of id on the resumed worker name, too
// late (see holdRun), and returns that worker's counters once it counts
// a refused completion and a fence, or as they are after 10 s.
func releaseLate(h *harness, name, id string) WorkerStats {
	deadline := time.Now().Add(10 * time.Second)
	var ws WorkerStats
	for ; time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		h.client.nc.Publish("test.release."+id, nil)
		if s, err := childStats(h.client.nc, name); err == nil {
			if ws = s; ws.Refused >= 1 && ws.Fenced >= 1 {
				break
			}
		}
	}
	return ws
}

// TestPausedWorkerFenced: a worker stopped (SIGSTOP) past its lease is
// taken for dead; its job runs again on a survivor, whose completion is
// the one recorded. Resumed (SIGCONT), the old worker's completion of that
// job is refused and it fences itself (re-registers and carries on).
func TestPausedWorkerFenced(t *testing.T) {
	h, kids, st := procCluster(t)
	ctx := context.Background()
	// "long" holds its run on w1 until released after the pause (see
	// holdRun): a run of 1.5 s could end before the pause landed.
	if err := h.client.Submit(ctx, "long", "sleep", []byte("hold"), To("w1")); err != nil {
		t.Fatal(err)
	}
	if id := st.next(t, "w1"); id != "long" {
		t.Fatalf("w1 started %s", id)
	}
	pid := kids["w1"].cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	r := h.wait("long") // after the lease expires and a survivor re-runs it
	t.Logf("paused w1: long recorded by %s after %v", r.Worker, time.Since(t0))
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || r.Worker == "w1" || r.Attempt < 1 {
		t.Fatalf("long: recorded by %s at attempt %d, err %v", r.Worker, r.Attempt, r.Err)
	}
	ws := releaseLate(h, "w1", "long")
	t.Logf("resumed w1 settled after %v: %+v", time.Since(t0), ws)
	if ws.Refused < 1 || ws.Fenced < 1 || ws.Completed != 0 {
		t.Fatalf("resumed w1: %+v, want a refused completion, a fence, and no recorded completion", ws)
	}
	if again := h.wait("long"); again.Worker != r.Worker || h.count("d.>") != 1 {
		t.Fatalf("ledger changed after w1 resumed: recorded by %s, %d completions", again.Worker, h.count("d.>"))
	}
}

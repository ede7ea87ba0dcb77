package cluster

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestStealCountAckLost: Client.Steal reports the jobs a steal moved when
// the victim's answer from the servers was lost and its retry found the
// move applied (refused as a duplicate): the reply then carries no
// revisions, but the jobs did move. With jobs held in memory among those
// moved and without.
func TestStealCountAckLost(t *testing.T) {
	for _, spawn := range []bool{true, false} {
		t.Run("spawn="+strconv.FormatBool(spawn), func(t *testing.T) { stealCountAckLost(t, spawn) })
	}
}

func stealCountAckLost(t *testing.T, spawn bool) {
	// The client waits longer than the victim's request timeout, so that
	// the victim's retry answers it.
	h := newHarness(t, WithLease(3*time.Second), WithRequestTimeout(5*time.Second), WithStealMode(StealOff))
	pv := newProxy(t, hostPort(h.e.URL()))
	release := make(chan struct{})
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" && string(j.Payload) == "spawn" {
			for range 2 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
		}
		gate(ctx, release)
		return nil, nil
	}
	w1 := h.workerOn(tcpConn(t, pv.url()), "w1", func(w *Worker) { w.Handle("job", handler) },
		WithSlots(1), WithRequestTimeout(time.Second))
	h.worker("w2", func(w *Worker) { w.Handle("job", handler) }, WithSlots(3))
	h.ready("w1", "w2")
	ctx := context.Background()
	ids := []string{"root"}
	payload, subs := []byte(nil), 3
	if spawn {
		payload, subs = []byte("spawn"), 1
		ids = append(ids, "root-0", "root-1")
	}
	if err := h.client.Submit(ctx, "root", "job", payload, To("w1")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "root to run and spawn", func() bool {
		return h.runCount("root") == 1 && w1.Queued() == len(ids)-1
	})
	ids = append(ids, submitTo(t, h, "s", subs, "w1")...)

	// Hold w1's outgoing bytes, ask for the steal (two of its three
	// queued jobs), and once w1 has popped them let its batch through
	// while the batch's answer is held past w1's request timeout.
	pv.blackhole(true, false)
	type answer struct {
		res StealResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := h.client.Steal(ctx, "w2", "w1", 0)
		got <- answer{res, err}
	}()
	waitFor(t, 10*time.Second, "w1 to pop two jobs for the thief", func() bool { return movingOf(w1) == 2 })
	pv.loseAnswers()
	time.Sleep(1500 * time.Millisecond) // past w1's request timeout: its commit retries
	pv.heal()
	var a answer
	select {
	case a = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("Steal did not return")
	}
	want := []string{"s2", "s1"} // from the back
	if spawn {
		want = []string{"s0", "root-0"}
	}
	if a.err != nil || !slices.Equal(a.res.Jobs, want) || a.res.VictimQueue != 1 {
		t.Errorf("Steal: %+v, %v; want jobs %v moved, 1 left", a.res, a.err, want)
	}
	close(release)
	checkQuiet(t, h, len(ids))
	for _, id := range ids {
		if n := h.runCount(id); n != 1 {
			t.Errorf("%s ran %d times, want once", id, n)
		}
	}
	if n := h.count("q.w2.>"); n != 0 {
		t.Errorf("%d records left on w2", n)
	}
}

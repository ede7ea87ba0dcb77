package cluster

import (
	"context"
	"testing"
	"time"
)

// TestLoanSubjectsGarbage: garbled or hostile messages on the loan and
// hunger subjects neither crash a worker nor change what it holds: a
// forged steal with a loan id lends to a thief that does not exist, and
// the lender's audit takes the jobs back; every job completes once.
func TestLoanSubjectsGarbage(t *testing.T) {
	h := newHarness(t, WithLease(time.Second), WithSlots(1), WithSpawnRecords(false))
	handler := func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		if j.ID == "root" {
			for range 6 {
				if _, err := j.Spawn(ctx, "job", nil); err != nil {
					return nil, err
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
		return nil, nil
	}
	w := h.worker("w1", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("w1")
	nc := h.conn()
	junk := [][]byte{nil, []byte("null"), []byte("{"), []byte(`[]`), []byte(`{"loan":1}`),
		[]byte(`{"loan":"x","thief":"w1","abort":true}`), []byte(`{"lender":"","loans":null}`),
		[]byte(`{"lender":"w1","loans":["a","b"]}`), []byte(`{"name":"../x","queue":-5}`),
		[]byte(`{"name":"ghost","queue":1000000}`)}
	for _, sub := range []string{"w.w1.return", "w.w1.loans", "hungry", "w.w1.hint", "w.w1.steal"} {
		for _, d := range junk {
			nc.Publish(w.cfg.subject(sub), d)
			nc.Request(w.cfg.subject(sub), d, 100*time.Millisecond)
		}
	}
	if err := h.client.Submit(context.Background(), "root", "job", nil, To("w1")); err != nil {
		t.Fatal(err)
	}
	// A forged thief borrows while the root's children wait.
	waitFor(t, 10*time.Second, "the root to run", func() bool { return h.runCount("root") == 1 })
	for _, req := range []string{`{"thief":"ghost","loan":"L1"}`, `{"thief":"ghost","loan":"L1"}`,
		`{"thief":"ghost","loan":"..."}`, `{"thief":"w1","loan":"L2"}`, `{"thief":"ghost","max":-3,"loan":"L3"}`} {
		nc.Request(w.cfg.subject("w.w1.steal"), []byte(req), time.Second)
	}
	nc.Publish(w.cfg.subject("w.w1.return"), []byte(`{"loan":"L1","thief":"other"}`))
	if r := h.wait("root"); r.Err != nil {
		t.Fatalf("root: %+v", r)
	}
	for i := range 6 {
		id := "root-" + string(rune('0'+i))
		if n := h.runCount(id); n != 1 {
			t.Fatalf("%s ran %d times, want 1", id, n)
		}
	}
	checkQuiet(t, h, 1)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
}

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestHungryEmptyLenderLeaves: a lender that answers a question empty
// (its surplus went, or the question is its own) is out of the lenders'
// group before its answer arrives, so that the asker's next try reaches
// another lender (here none: "no responders") rather than the same one,
// however late its hint loop runs; and it joins again once its hint loop
// sees jobs to spare.
func TestHungryEmptyLenderLeaves(t *testing.T) {
	h := newHarness(t, WithSlots(1), WithStealMode(StealOff), WithLease(2*time.Second))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	w1 := h.worker("w1", func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		})
	})
	h.ready("w1")
	h.occupy("w1")
	ids := h.submitN(2, "job", To("w1"))
	h.held("w1", ids...)
	nc := h.conn()
	subj := h.client.cfg.subject("hungry")
	ask := func(name string) (*nats.Msg, error) {
		q, _ := json.Marshal(hint{Name: name})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return nc.RequestWithContext(ctx, subj, q)
	}
	waitFor(t, 5*time.Second, "w1 to join the lenders", func() bool {
		m, err := ask("asker")
		return err == nil && len(m.Data) > 0
	})

	// w1's own question (it ran dry while still a lender) is answered
	// empty; w1's hint loop is held up meanwhile (w.mu).
	w1.mu.Lock()
	m, err := ask("w1")
	if err != nil || len(m.Data) != 0 {
		w1.mu.Unlock()
		t.Fatalf("own question: %v %v, want an empty answer", m, err)
	}
	_, err = ask("w1")
	w1.mu.Unlock()
	if !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("asked again after an empty answer: %v, want no responders (the lender that answered empty is still in the group)", err)
	}
	waitFor(t, 5*time.Second, "w1, which still has jobs to spare, to join again", func() bool {
		m, err := ask("asker")
		return err == nil && len(m.Data) > 0
	})
}

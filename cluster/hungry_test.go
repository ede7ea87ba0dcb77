package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestHungryAsksOnlyLenders: a worker's "who has jobs?" question reaches
// only the workers with jobs to spare. With none, the servers answer "no
// responders" at once, however many workers there are; with one, it
// answers with a hint naming itself; once its surplus is gone, nobody is
// asked again.
func TestHungryAsksOnlyLenders(t *testing.T) {
	h := newHarness(t, WithSlots(1), WithStealMode(StealOff), WithLease(2*time.Second))
	release := make(chan struct{})
	blocking := func(w *Worker) {
		w.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
			h.ran(j.ID)
			<-release
			return nil, nil
		})
	}
	for _, n := range []string{"w1", "w2", "w3"} {
		h.worker(n, blocking)
	}
	h.ready("w1", "w2", "w3")
	nc := h.conn()
	subj := h.client.cfg.subject("hungry")
	question, _ := json.Marshal(hint{Name: "asker"})
	ask := func() (*nats.Msg, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return nc.RequestWithContext(ctx, subj, question)
	}

	if _, err := ask(); !errors.Is(err, nats.ErrNoResponders) {
		t.Fatalf("idle cluster: asked %v, want no responders (an idle worker heard the question)", err)
	}

	h.occupy("w1")
	ids := h.submitN(3, "job", To("w1"))
	h.held("w1", ids...)
	var got hint
	waitFor(t, 5*time.Second, "w1 to answer with its surplus", func() bool {
		m, err := ask()
		return err == nil && len(m.Data) > 0 && json.Unmarshal(m.Data, &got) == nil
	})
	if got.Name != "w1" || got.Queue != 3 {
		t.Fatalf("hint %+v, want w1 with 3 jobs to spare", got)
	}

	close(release)
	waitFor(t, 10*time.Second, "w1 to run its jobs", func() bool { return h.runCount(ids[2]) == 1 })
	waitFor(t, 5*time.Second, "w1 to leave the lenders", func() bool {
		_, err := ask()
		return errors.Is(err, nats.ErrNoResponders)
	})
}

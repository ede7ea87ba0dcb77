package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
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
	asker := hungryAsker(h)
	ask := func() (*nats.Msg, error) { return asker("asker") }

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
	ask := hungryAsker(h)
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

// TestHungrySilentLender: a lender that never answers (stopped, or cut
// off while the servers still hold its subscription) costs a question
// askWait, not the request timeout, and the asker asks again, hungryTries
// times in all, so that another lender, if any, may answer.
func TestHungrySilentLender(t *testing.T) {
	// w1 does not steal: its dispatcher, dry, would ask too, and the
	// silent lender would hear those questions as well (3 of 5 runs).
	h := newHarness(t, WithLease(2*time.Second), WithRequestTimeout(10*time.Second), WithStealMode(StealOff))
	w1 := h.worker("w1", func(w *Worker) { w.Handle("job", h.sleeper(0)) })
	h.ready("w1")
	nc := h.conn()
	heard := make(chan struct{}, 10)
	sub, err := nc.QueueSubscribe(h.client.cfg.subject("hungry"), lendersQueue, func(*nats.Msg) { heard <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	nc.Flush()
	q, _ := json.Marshal(hint{Name: "w1"})
	t0 := time.Now()
	w1.ask(q)
	took := time.Since(t0)
	if len(heard) != hungryTries {
		t.Errorf("the silent lender heard %d questions, want %d (one a try)", len(heard), hungryTries)
	}
	if limit := hungryTries*askWait + time.Second; took > limit {
		t.Errorf("ask took %v against a silent lender, want at most %v", took, limit)
	}
}

// hungryAsker asks the hungry question as name, from a connection of its
// own, and waits up to a second for the answer.
func hungryAsker(h *harness) func(name string) (*nats.Msg, error) {
	nc := h.conn()
	subj := h.client.cfg.subject("hungry")
	return func(name string) (*nats.Msg, error) {
		q, _ := json.Marshal(hint{Name: name})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return nc.RequestWithContext(ctx, subj, q)
	}
}

// TestHungryAsksAgainWhileLendersAnswer: a thief whose question was
// answered with a hint, and whose steal then came back empty (the lender's
// jobs went to faster thieves), asks again soon instead of waiting for a
// periodic hint (lease/4); once nobody answers, it stops asking until its
// next dry spell.
func TestHungryAsksAgainWhileLendersAnswer(t *testing.T) {
	h := newHarness(t, WithSlots(1), WithLease(3*time.Second))
	h.worker("empty", func(*Worker) {}) // named by the hints, has nothing
	h.ready("empty")
	var asked atomic.Int64
	lender, err := h.conn().QueueSubscribe(h.client.cfg.subject("hungry"), lendersQueue, func(m *nats.Msg) {
		var q hint
		if json.Unmarshal(m.Data, &q) == nil && q.Name == "thief" {
			asked.Add(1)
			b, _ := json.Marshal(hint{Name: "empty", Queue: 5})
			m.Respond(b)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	h.worker("thief", func(*Worker) {}) // runs dry at its start, and asks
	time.Sleep(300 * time.Millisecond)
	if n := asked.Load(); n < 3 {
		t.Fatalf("thief asked %d times in 300 ms while a lender answered with hints, want at least 3 (it waited for a periodic hint)", n)
	}
	lender.Unsubscribe() // no lender now: "no responders"
	time.Sleep(100 * time.Millisecond)
	before := asked.Load()
	time.Sleep(300 * time.Millisecond)
	if n := asked.Load() - before; n != 0 {
		t.Errorf("thief asked %d more times with no lender, want 0", n)
	}
}

package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestIdleCheck drives each step of Client.Idle with hand-made state: a
// lease without an answering worker, a record without a worker, a worker
// whose epoch moves between the waves, and a busy worker each keep the
// answer false; only a quiet cluster is idle.
//
// Idle waits a quarter of the request timeout (500 ms) for each wave's
// answers, and an answer that comes later makes it false: where the
// answer must be true, a false one is asked again (for at most 10 s), as
// a loaded machine can delay the fake worker's answer. A false answer
// can only be wrong the other way, so those steps ask once.
func TestIdleCheck(t *testing.T) {
	h := newHarness(t, WithLease(30*time.Second)) // the fake lease must outlast the test
	ctx := context.Background()
	idle := func(step string, want bool) {
		t.Helper()
		got, err := h.client.Idle(ctx)
		for deadline := time.Now().Add(10 * time.Second); want && !got && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			got, err = h.client.Idle(ctx)
		}
		if got != want {
			t.Fatalf("%s: Idle = %v (%v), want %v", step, got, err, want)
		}
	}
	idle("empty cluster", true)

	// A record whose owner holds no lease and that nobody took over yet.
	rev, err := h.client.st.put(ctx, qKey("ghost", "x"), []byte(`{"id":"x","type":"t"}`), "x", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	idle("orphan record", false)
	if _, err := h.client.st.commit(ctx, []op{{key: qKey("ghost", "x"), del: true, check: true, expect: rev}}); err != nil {
		t.Fatal(err)
	}
	idle("orphan record removed", true)

	// A fake worker "f1": a lease, and answers to waves from state().
	var mu sync.Mutex
	// Until f1 has a lease, answers name another worker: a wave may
	// reach this subscription as soon as it exists.
	state := func() beat { return beat{Name: "someone-else"} }
	setState := func(f func() beat) { mu.Lock(); state = f; mu.Unlock() }
	sub, err := h.conn().Subscribe(h.client.cfg.subject("state"), func(m *nats.Msg) {
		mu.Lock()
		b, _ := json.Marshal(state())
		mu.Unlock()
		m.Respond(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	lease, _ := json.Marshal(beat{Name: "f1"})
	if _, err := h.client.st.workers.Create(ctx, "f1", lease); err != nil {
		t.Fatal(err)
	}
	setState(func() beat { return beat{Name: "someone-else"} })
	idle("lease holder that does not answer", false)
	setState(func() beat { return beat{Name: "f1", Inc: 1, Epoch: 7} })
	idle("quiet fake worker", true)
	epoch := uint64(0)
	setState(func() beat { epoch++; return beat{Name: "f1", Inc: 1, Epoch: epoch} })
	idle("epoch moved between the waves", false)
	setState(func() beat { return beat{Name: "f1", Inc: 1, Epoch: 7, Busy: true} })
	idle("busy worker", false)
}

// TestWaitIdleClosedConn: WaitIdle on a client whose connection was
// closed returns nats.ErrConnectionClosed, as Wait does, instead of
// checking again every 50 ms until its context ends (for good, with no
// deadline).
func TestWaitIdleClosedConn(t *testing.T) {
	h := newHarness(t)
	nc := h.conn()
	c, err := NewClient(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.WaitIdle(ctx); !errors.Is(err, nats.ErrConnectionClosed) {
		t.Fatalf("WaitIdle on a closed connection = %v, want nats.ErrConnectionClosed", err)
	}
}

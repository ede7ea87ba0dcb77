package cluster

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// tcpConn connects over TCP to url (a proxy, usually), reconnecting
// quickly and without limit until the test's cleanup closes it.
func tcpConn(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.ReconnectWait(50*time.Millisecond),
		nats.MaxReconnects(-1), nats.ReconnectJitter(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// hostPort strips the scheme from a server URL.
func hostPort(url string) string { return strings.TrimPrefix(url, "nats://") }

// workerOn starts a worker on connection nc; handlers are added by
// register. It is closed at the end of the test.
func (h *harness) workerOn(nc *nats.Conn, name string, register func(*Worker), extra ...Option) *Worker {
	h.t.Helper()
	w, err := NewWorker(nc, name, append(append([]Option{}, h.opts...), extra...)...)
	if err != nil {
		h.t.Fatal(err)
	}
	register(w)
	if err := w.Start(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { w.Close() })
	h.mu.Lock()
	if h.byName == nil {
		h.byName = map[string]*Worker{}
	}
	h.byName[name] = w
	h.mu.Unlock()
	return w
}

// ready waits until every named worker answers the idle check's state
// request: its subscriptions are in place (the lease is taken before them).
func (h *harness) ready(names ...string) {
	h.t.Helper()
	waitFor(h.t, 10*time.Second, "workers answering "+strings.Join(names, " "), func() bool {
		got, _ := h.client.wave(context.Background(), names)
		for _, n := range names {
			if _, ok := got[n]; !ok {
				return false
			}
		}
		return true
	})
}

// waitFor polls cond every 10 ms for at most d, failing the test with
// what when it never holds.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runLog records which worker ran which job, in order.
type runLog struct {
	mu sync.Mutex
	by map[string][]string
}

func newRunLog() *runLog { return &runLog{by: map[string][]string{}} }

func (l *runLog) add(id, worker string) {
	l.mu.Lock()
	l.by[id] = append(l.by[id], worker)
	l.mu.Unlock()
}

func (l *runLog) of(id string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.by[id]...)
}

// movingOf reports the jobs a worker popped for a steal or takeover and
// has not settled yet (w.moving), read under the worker's lock.
func movingOf(w *Worker) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.moving
}

// leaseHeld reports whether name holds a lease in the workers bucket.
func (h *harness) leaseHeld(name string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := h.client.st.workers.Get(ctx, name)
	return err == nil
}

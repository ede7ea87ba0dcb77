package cluster

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster/natsserver"
)

// startServer runs an embedded server for one test.
func startServer(t *testing.T) *natsserver.Server {
	t.Helper()
	e, err := natsserver.Start(natsserver.StoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// harness is one cluster on one embedded server: workers and a client,
// each on its own connection, and a count of handler runs per job id.
type harness struct {
	t      *testing.T
	e      *natsserver.Server
	opts   []Option
	client *Client
	mu     sync.Mutex
	runs   map[string]int
	byName map[string]*Worker // the in-process workers, for held
}

// occupy submits job "busy" to the in-process worker name and waits until
// it runs: with one slot, the worker's next jobs then wait in its deque,
// where a thief can borrow them.
func (h *harness) occupy(name string) {
	h.t.Helper()
	if err := h.client.Submit(context.Background(), "busy", "job", nil, To(name)); err != nil {
		h.t.Fatal(err)
	}
	waitFor(h.t, 10*time.Second, "busy to run", func() bool { return h.runCount("busy") == 1 })
}

// busyLender starts worker "lender" (with one slot, from the harness's
// options, and no stealing of its own) with handler for type "job", and
// occupies its slot with job "busy": the jobs submitted to it next wait in
// its deque, where a thief can borrow them.
func (h *harness) busyLender(handler Handler) *Worker {
	h.t.Helper()
	lender := h.worker("lender", func(w *Worker) { w.Handle("job", handler) }, WithStealMode(StealOff))
	h.ready("lender")
	h.occupy("lender")
	return lender
}

// lendOne submits job "lent" to the busy lender, starts worker "thief"
// with handler and opts, and waits until the thief runs "lent", which it
// can only have borrowed.
func (h *harness) lendOne(handler Handler, opts ...Option) *Worker {
	h.t.Helper()
	if err := h.client.Submit(context.Background(), "lent", "job", nil, To("lender")); err != nil {
		h.t.Fatal(err)
	}
	thief := h.worker("thief", func(w *Worker) { w.Handle("job", handler) }, opts...)
	waitFor(h.t, 10*time.Second, "the thief to run lent", func() bool { return h.runCount("lent") == 1 })
	return thief
}

// held waits until the in-process worker name holds every one of ids
// (queued or running) or has completed: a submission returns once its record is
// stored, and the worker queues it when its watch delivers the record.
func (h *harness) held(name string, ids ...string) {
	h.t.Helper()
	h.mu.Lock()
	w := h.byName[name]
	h.mu.Unlock()
	if w == nil {
		return // a worker process: the test waits on what it observes
	}
	waitFor(h.t, 10*time.Second, name+" to queue its submitted jobs", func() bool {
		for _, id := range ids {
			w.mu.Lock()
			_, ok := w.known[id]
			w.mu.Unlock()
			if !ok && h.count("d."+id) == 0 {
				return false
			}
		}
		return true
	})
}

func newHarness(t *testing.T, opts ...Option) *harness {
	return newHarnessOn(t, startServer(t), opts...)
}

// newHarnessOn is newHarness on a server the test started.
func newHarnessOn(t *testing.T, e *natsserver.Server, opts ...Option) *harness {
	h := &harness{t: t, e: e, opts: opts, runs: map[string]int{}}
	c, err := NewClient(context.Background(), h.conn(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	h.client = c
	return h
}

func (h *harness) conn() *nats.Conn {
	nc, err := h.e.Connect()
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(nc.Close)
	return nc
}

// worker starts a worker; handlers are added by register. It is closed
// at the end of the test (before its connection: cleanups run in reverse).
func (h *harness) worker(name string, register func(*Worker), extra ...Option) *Worker {
	h.t.Helper()
	return h.workerOn(h.conn(), name, register, extra...)
}

func (h *harness) ran(id string) {
	h.mu.Lock()
	h.runs[id]++
	h.mu.Unlock()
}

func (h *harness) runCount(id string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[id]
}

// sleeper is a handler that sleeps d, counts the run, and returns its id.
func (h *harness) sleeper(d time.Duration) Handler {
	return func(ctx context.Context, j *Job) ([]byte, error) {
		h.ran(j.ID)
		time.Sleep(d)
		return []byte("done:" + j.ID), nil
	}
}

// submitN submits jobs j0..j<n-1> of type typ with opts.
func (h *harness) submitN(n int, typ string, opts ...SubmitOption) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "j" + strconv.Itoa(i)
		if err := h.client.Submit(context.Background(), ids[i], typ, nil, opts...); err != nil {
			h.t.Fatalf("submit %s: %v", ids[i], err)
		}
	}
	return ids
}

// wait returns the result of id, failing the test after 20 s.
func (h *harness) wait(id string) *Result {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := h.client.Wait(ctx, id)
	if err != nil {
		h.t.Fatalf("wait %s: %v", id, err)
	}
	return r
}

// count returns the number of keys under filter in the jobs bucket.
func (h *harness) count(filter string) int {
	keys, err := h.client.st.keys(context.Background(), filter)
	if err != nil {
		h.t.Fatal(err)
	}
	return len(keys)
}

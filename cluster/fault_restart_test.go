package cluster

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster/natsserver"
)

// TestRestartLiveWorker: a worker that stays up while the (only) server
// restarts on file storage carries on. The restart loses the workers
// bucket (leases live in memory): the worker creates it again, registers
// again, sees a worker that joins afterwards, and runs jobs. The client,
// made before the restart, must not be what brings the bucket back.
func TestRestartLiveWorker(t *testing.T) {
	rs := newRestartable(t)
	opts := []Option{WithLease(time.Second), WithStorage(FileStorage)}
	h := rs.harness(opts...)
	job := func(w *Worker) { w.Handle("job", h.sleeper(0)) }
	w1 := h.workerOn(tcpConn(t, rs.p.url()), "w1", job)
	h.ready("w1")
	submitTo(t, h, "before", 1, "w1")
	h.wait("before0")

	rs.restart()

	waitFor(t, 10*time.Second, "w1 to hold a lease after the restart", func() bool { return h.leaseHeld("w1") })
	h.workerOn(tcpConn(t, rs.p.url()), "w2", job)
	waitFor(t, 10*time.Second, "w1 to see w2 join", func() bool { return w1.members.has("w2") })
	for _, to := range []string{"w1", "w2"} {
		id := submitTo(t, h, "after-"+to+"-", 1, to)[0]
		if r := h.wait(id); r.Worker != to || r.Err != nil {
			t.Fatalf("%s: recorded by %s, err %v", id, r.Worker, r.Err)
		}
	}
}

// restartable is one server on file storage behind a proxy, which a test
// restarts in place on the same directory while its clients and workers,
// connected through the proxy, stay up.
type restartable struct {
	t   *testing.T
	dir string
	mu  sync.Mutex // e, against the cleanup
	e   *natsserver.Server
	p   *proxy
}

func newRestartable(t *testing.T) *restartable {
	rs := &restartable{t: t, dir: t.TempDir()}
	e, err := natsserver.Start(natsserver.StoreDir(rs.dir))
	if err != nil {
		t.Fatal(err)
	}
	rs.e = e
	t.Cleanup(func() { rs.mu.Lock(); rs.e.Shutdown(); rs.mu.Unlock() })
	rs.p = newProxy(t, hostPort(e.URL()))
	return rs
}

// harness is a harness whose client connects through the proxy.
func (rs *restartable) harness(opts ...Option) *harness {
	h := &harness{t: rs.t, opts: opts, runs: map[string]int{}}
	c, err := NewClient(context.Background(), tcpConn(rs.t, rs.p.url()), opts...)
	if err != nil {
		rs.t.Fatal(err)
	}
	h.client = c
	return h
}

// restart stops the server and starts it again on the same directory, and
// cuts the proxy's connections so that everyone reconnects to it.
func (rs *restartable) restart() {
	rs.mu.Lock()
	rs.e.Shutdown()
	e, err := natsserver.Start(natsserver.StoreDir(rs.dir))
	if err != nil {
		rs.mu.Unlock()
		rs.t.Fatal(err)
	}
	rs.e = e
	rs.p.setTarget(hostPort(e.URL()))
	rs.mu.Unlock()
	rs.p.reset()
}

// TestServerRestart: with file storage, queued jobs survive a restart of
// the (only) NATS server: a worker started afterwards finds them, as
// orphans, and runs every one.
func TestServerRestart(t *testing.T) {
	dir := t.TempDir()
	opts := []Option{WithLease(time.Second), WithStorage(FileStorage), WithSlots(1)}
	ctx := context.Background()
	e1, err := natsserver.Start(natsserver.StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	nc1, err := e1.Connect()
	if err != nil {
		t.Fatal(err)
	}
	w1, _ := NewWorker(nc1, "w1", append(opts, WithStealMode(StealOff))...)
	w1.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) {
		<-ctx.Done() // never finishes here
		return nil, ctx.Err()
	})
	if err := w1.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c1, err := NewClient(ctx, nc1, opts...)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	for i := range n {
		if err := c1.Submit(ctx, "r"+strconv.Itoa(i), "job", nil); err != nil {
			t.Fatal(err)
		}
	}
	w1.Close()
	nc1.Close()
	e1.Shutdown()

	e2, err := natsserver.Start(natsserver.StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e2.Shutdown)
	nc2, err := e2.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc2.Close)
	w2, _ := NewWorker(nc2, "w2", opts...)
	w2.Handle("job", func(ctx context.Context, j *Job) ([]byte, error) { return []byte("ok"), nil })
	if err := w2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w2.Close() })
	c2, _ := NewClient(ctx, nc2, opts...)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for i := range n {
		r, err := c2.Wait(wctx, "r"+strconv.Itoa(i))
		if err != nil || r.Err != nil || r.Worker != "w2" {
			t.Fatalf("r%d after the restart: %v %+v", i, err, r)
		}
	}
}

// startFileServer runs a NATS server on its own in a child process, with
// file storage in dir, at port; the test kills it with SIGKILL.
func startFileServer(t *testing.T, port int, dir string) *child {
	t.Helper()
	return startRole(t, "server", roleEnv+"=server", serverEnv+"="+fmt.Sprintf("s1 %d 0 - %s", port, dir))
}

// TestServerKilledKeepsJobsDone: jobs completed on a file-storage server
// stay completed when that server is killed with SIGKILL and started
// again on the same directory. No record of theirs comes back, and none
// runs again. On nats-server v2.15.2, a delete inside an atomic batch that
// carries a message TTL comes back after such a kill; the tier writes its
// deletes in batches without one.
func TestServerKilledKeepsJobsDone(t *testing.T) {
	const n = 40
	port, dir := freePorts(t, 1)[0], t.TempDir()
	srv := startFileServer(t, port, dir)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	nc := tcpConnWhenUp(t, url)
	opts := []Option{WithLease(time.Second), WithStorage(FileStorage)}
	h := &harness{t: t, opts: opts, runs: map[string]int{}}
	var err error
	if h.client, err = NewClient(context.Background(), nc, opts...); err != nil {
		t.Fatal(err)
	}
	job := func(w *Worker) { w.Handle("job", h.sleeper(0)) }
	h.workerOn(tcpConn(t, url), "w1", job)
	h.workerOn(tcpConn(t, url), "w2", job)
	h.ready("w1", "w2")
	ids := append(submitTo(t, h, "a", n/2, "w1"), submitTo(t, h, "b", n/2, "w2")...)
	for _, id := range ids {
		h.wait(id)
	}
	// Past the deletes' former 1 s TTL, so that any expiry has happened.
	time.Sleep(1500 * time.Millisecond)
	if c := h.count("q.>"); c != 0 {
		t.Fatalf("%d records live before the kill, want 0", c)
	}
	// The delete markers expired: the stream holds the ledger only.
	waitFor(t, 5*time.Second, "the jobs stream to hold the ledger only", func() bool {
		str, err := h.client.st.js.Stream(context.Background(), "KV_"+h.client.st.cfg.jobsBucket())
		return err == nil && str.CachedInfo().State.Msgs == n
	})

	srv.cmd.Process.Kill() // SIGKILL
	srv.cmd.Wait()
	startFileServer(t, port, dir)
	waitFor(t, 20*time.Second, "w1 and w2 to hold leases after the restart", func() bool {
		return h.leaseHeld("w1") && h.leaseHeld("w2")
	})
	// Long enough for a record that came back to be loaded and run.
	time.Sleep(2 * time.Second)
	if c := h.count("q.>"); c != 0 {
		t.Errorf("%d records of completed jobs came back after SIGKILL, want 0", c)
	}
	for _, id := range ids {
		if c := h.runCount(id); c != 1 {
			t.Errorf("%s ran %d times, want 1", id, c)
		}
	}
}

// tcpConnWhenUp is tcpConn, retrying for up to 10 s until the server
// (a child process just started) accepts connections.
func tcpConnWhenUp(t *testing.T, url string) *nats.Conn {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; {
		nc, err := nats.Connect(url, nats.ReconnectWait(50*time.Millisecond),
			nats.MaxReconnects(-1), nats.ReconnectJitter(0, 0))
		if err == nil {
			t.Cleanup(nc.Close)
			return nc
		}
		if time.Now().After(end) {
			t.Fatalf("server at %s: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

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

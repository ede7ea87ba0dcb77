package cluster

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/steal/cluster/natsserver"
)

// TestNotConnected: a nil, closed or reconnecting connection gets
// ErrNotConnected, saying why, and never ErrServerTooOld, which would send
// the user to upgrade a server that is fine.
func TestNotConnected(t *testing.T) {
	e := startServer(t)
	closed, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	for _, tc := range []struct {
		name string
		nc   *nats.Conn
		also error
	}{
		{"nil", nil, nil},
		{"closed", closed, nats.ErrConnectionClosed},
	} {
		_, err := NewClient(short(), tc.nc)
		if !errors.Is(err, ErrNotConnected) || errors.Is(err, ErrServerTooOld) || tc.also != nil && !errors.Is(err, tc.also) {
			t.Errorf("%s: NewClient = %v, want ErrNotConnected (and %v)", tc.name, err, tc.also)
		}
		w, err := NewWorker(tc.nc, "w")
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(short()); !errors.Is(err, ErrNotConnected) {
			t.Errorf("%s: Start = %v, want ErrNotConnected", tc.name, err)
		}
	}
}

// TestOpenWhileReconnecting: NewClient on a connection that is
// reconnecting waits for the server to be back, within its context, and
// reports a context that ends first as not connected.
func TestOpenWhileReconnecting(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	start := func() *natsserver.Server {
		e, err := natsserver.Start(natsserver.StoreDir(dir), natsserver.Listen("127.0.0.1", port))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e1 := start()
	nc, err := nats.Connect(e1.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	e1.Shutdown()
	waitFor(t, 5*time.Second, "the connection to reconnect", func() bool { return nc.Status() == nats.RECONNECTING })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = NewClient(ctx, nc)
	cancel()
	if !errors.Is(err, ErrNotConnected) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("NewClient with no server = %v, want ErrNotConnected and the deadline", err)
	}
	back := make(chan *natsserver.Server, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		back <- start()
	}()
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = NewClient(ctx, nc)
	e2 := <-back
	defer e2.Shutdown()
	if err != nil {
		t.Fatalf("NewClient while reconnecting = %v, want it to wait for the server", err)
	}
}

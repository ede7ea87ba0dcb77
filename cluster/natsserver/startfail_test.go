package natsserver

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartPortInUse: a port in use fails Start at once, and the error
// says so, where it used to wait 10 s and say only that the server did
// not start.
func TestStartPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	start := time.Now()
	e, err := Start(StoreDir(t.TempDir()), Listen("127.0.0.1", port))
	if err == nil {
		e.Shutdown()
		t.Fatal("started on a port in use")
	}
	if !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), strconv.Itoa(port)) {
		t.Errorf("error %q does not name the port in use", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failed after %v", d)
	}
}

// TestStartBadStoreDir: a store directory that is a file fails Start at
// once with nats-server's reason.
func TestStartBadStoreDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	e, err := Start(StoreDir(file))
	if err == nil {
		e.Shutdown()
		t.Fatal("started with a file for a store directory")
	}
	if !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("error %q does not say the store is not a directory", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failed after %v", d)
	}
}

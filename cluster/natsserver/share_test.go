package natsserver

import (
	"strings"
	"testing"
)

// TestStoreDirInUse: a second server on a store directory that a running
// server holds is refused: two servers writing the same stream files
// corrupt them.
func TestStoreDirInUse(t *testing.T) {
	dir := t.TempDir()
	a, err := Start(StoreDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown()
	b, err := Start(StoreDir(dir))
	if err == nil {
		b.Shutdown()
		t.Fatal("a second server started on a store directory in use")
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not name the directory", err)
	}
	a.Shutdown()
	c, err := Start(StoreDir(dir))
	if err != nil {
		t.Fatalf("once the first stopped: %v", err)
	}
	c.Shutdown()
}

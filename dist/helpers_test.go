package dist

import (
	"testing"
)

// startServer runs an embedded server for one test.
func startServer(t *testing.T) *Embedded {
	t.Helper()
	e, err := StartEmbedded(EmbedStoreDir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

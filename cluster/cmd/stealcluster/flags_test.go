package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/worksteal/steal/internal/cli"
)

// fullWriter fails every write, as stdout on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestClusterDemoReportsOutputErrors: cluster demo exited 0 when none of
// its output could be written (cluster demo > /dev/full).
func TestClusterDemoReportsOutputErrors(t *testing.T) {
	var errb strings.Builder
	code := cli.Run([]string{"cluster", "demo", "-workers", "2", "-roots", "1", "-depth", "0", "-sleep", "0"},
		nil, fullWriter{}, &errb, commands()...)
	if code != 1 || !strings.Contains(errb.String(), "stealcluster cluster demo: writing the output: no space left on device") {
		t.Errorf("code %d, stderr %q; want 1 and the write error", code, errb.String())
	}
}

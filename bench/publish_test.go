package main

import (
	"strings"
	"testing"
	"time"
)

// The document quotes the command that made it and the rounds behind each
// median: both must be those of this run, not the usual ones.
func TestPublishedCommandAndRuns(t *testing.T) {
	pub := published(options{runs: 5, timeout: 2 * time.Second}, nil)
	if pub.Runs != 5 || !strings.Contains(pub.Command, "-runs 5") || !strings.Contains(pub.Command, "-timeout 2s") {
		t.Errorf("runs %d, command %q", pub.Runs, pub.Command)
	}
	if _, err := plan([]string{"fib"}, options{runs: 0}); err == nil {
		t.Error("-runs 0 accepted (it ran one round, and -publish wrote \"median of 0 rounds\")")
	}
}

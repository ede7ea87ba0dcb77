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

// -publish runs every workload on every implementation at its default
// size: a flag that would narrow it is refused, not quietly dropped.
func TestPublishRefusesIgnoredFlags(t *testing.T) {
	for _, c := range []struct {
		o    options
		args []string
	}{
		{options{publish: true, param: "tiny"}, nil},
		{options{publish: true, impls: []string{"steal"}}, nil},
		{options{publish: true}, []string{"fib"}},
		{options{publish: true, json: true}, nil},
		{options{publish: true, brief: true}, nil},
	} {
		if err := checkPublish(c.o, c.args); err == nil {
			t.Errorf("-publish accepts %+v %q", c.o, c.args)
		}
	}
	if err := checkPublish(options{publish: true, runs: 3}, nil); err != nil {
		t.Error(err)
	}
}

// A figure of zero (no idle CPU measured at all) gives no ratio: the
// verdict must not print an infinite one.
func TestVerdictsZeroFigure(t *testing.T) {
	_, wins := verdicts([]Result{
		{Workload: "idle", Impl: "steal", OK: true, CPUNsPerS: 0},
		{Workload: "idle", Impl: "goroutines", OK: true, CPUNsPerS: 1e6},
	})
	for _, w := range wins {
		if strings.Contains(w, "Inf") || strings.Contains(w, "NaN") {
			t.Errorf("win: %s", w)
		}
	}
}

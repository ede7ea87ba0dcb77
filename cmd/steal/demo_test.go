package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestDemoTinyRunsAndReports(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	var out, errOut bytes.Buffer
	code := run([]string{"demo", "-workers", "2", "-tasks", "40", "-size", "20000", "-every", "5ms", "-trace", trace},
		nil, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{"-- 1 worker(s)", "-- 2 worker(s)", "summary", "worker 0 ran", "worker 1 ran", "parallel efficiency"} {
		if !strings.Contains(text, want) {
			t.Fatalf("output lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`(?m)^SCHED \d+ms: workers=2 idle=\d+ spinning=\d+ inject=\d+ local=\[\d+ \d+\]`).MatchString(text) {
		t.Fatalf("no schedtrace line for the 2-worker run:\n%s", text)
	}
	// Every task ran: the final schedtrace line of each run says ran=40+1.
	if n := strings.Count(text, "ran=41 "); n != 2 {
		t.Fatalf("final schedtrace lines with ran=41: %d, want 2:\n%s", n, text)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct{ TraceEvents []map[string]any }
	if err := json.Unmarshal(data, &tr); err != nil || len(tr.TraceEvents) == 0 {
		t.Fatalf("trace file not a trace: %v", err)
	}
}

func TestDemoRejectsBadFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"demo", "-tasks", "0"}, nil, &out, &errOut); code != 2 {
		t.Fatalf("exit %d for -tasks 0, want 2", code)
	}
}

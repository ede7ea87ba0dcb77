package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cluster demo with no flags: every job of the skewed workload is done,
// idle workers stole some, and it exits 0.
func TestClusterDemo(t *testing.T) {
	code, out, errs := runWith(nil, "cluster", "demo")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "summary: 320 of 320 jobs done in ") || !strings.Contains(out, "cluster stopped") {
		t.Fatalf("no summary of 320 jobs done:\n%s", out)
	}
	m := regexp.MustCompile(`jobs done in \S+, (\d+) jobs stolen`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count of jobs stolen:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Fatalf("no job stolen:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^ +\d+\.\d+s +done +\d+/320 +stolen +\d+ +queues w1=\d+ w2=\d+ w3=\d+ w4=\d+$`).MatchString(out) {
		t.Fatalf("no progress line:\n%s", out)
	}
	// Each worker's line adds up to the total.
	sum := 0
	for _, m := range regexp.MustCompile(`(?m)^  w\d completed (\d+) jobs`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	if sum != 320 {
		t.Fatalf("workers' lines add up to %d jobs, want 320:\n%s", sum, out)
	}
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runWith(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(file, []byte(sampleTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args     []string
		stdin    string
		code     int
		out, err string
		emptyOut bool
	}{
		{args: nil, code: 2, err: "usage: charts", emptyOut: true},
		{args: []string{"help"}, code: 0, out: "commands:"},
		{args: []string{"pie"}, code: 2, err: `unknown command "pie"`, emptyOut: true},
		{args: []string{"timeline"}, stdin: sampleTrace, code: 0, out: "<svg"},
		{args: []string{"timeline", file}, code: 0, out: "steal demo: sample"},
		{args: []string{"timeline", "-title", "T", "-"}, stdin: sampleTrace, code: 0, out: ">T<"},
		{args: []string{"sim"}, stdin: sampleSim(3), code: 0, out: "half/random"},
		{args: []string{"sim", "-title", "T"}, stdin: sampleSim(3), code: 2, err: "no other flags", emptyOut: true},
		{args: []string{"timeline", "a", "b"}, code: 2, err: "at most one input file", emptyOut: true},
		{args: []string{"timeline", "-bogus"}, code: 2, err: "flag provided but not defined", emptyOut: true},
		{args: []string{"timeline"}, stdin: "not json", code: 1, err: "charts timeline: reading trace:", emptyOut: true},
		{args: []string{"sim"}, stdin: sampleTrace, code: 1, err: "charts sim: reading simulation:", emptyOut: true},
		{args: []string{"sim", filepath.Join(t.TempDir(), "missing.json")}, code: 1, err: "no such file", emptyOut: true},
	} {
		code, out, errs := runWith(tc.args, tc.stdin)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) || (tc.emptyOut && out != "") {
			t.Errorf("%v: code %d, stdout %.80q, stderr %q", tc.args, code, out, errs)
		}
	}
}

// TestStealOutputDraws runs the documented pipelines: the steal program's
// own output, drawn by this one. It builds the steal program, so it is
// skipped with -short.
func TestStealOutputDraws(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the steal program")
	}
	dir := t.TempDir()
	steal := filepath.Join(dir, "steal")
	if out, err := exec.Command("go", "build", "-o", steal, "github.com/worksteal/steal/cmd/steal").CombinedOutput(); err != nil {
		t.Fatalf("building steal: %v\n%s", err, out)
	}
	simJSON, err := exec.Command(steal, "sim", "-json", "-samples", "-workers", "3", "-jobs", "60", "-policies", "all").Output()
	if err != nil {
		t.Fatal(err)
	}
	code, svg, errs := runWith([]string{"sim"}, string(simJSON))
	if code != 0 {
		t.Fatalf("charts sim: code %d: %s", code, errs)
	}
	checkLabels(t, []byte(svg))
	for _, want := range []string{"60 jobs (exponential, mean 1 ms, start: first) on 3 workers", ">none: makespan ",
		">central: makespan ", ">half/best_of_two: makespan ", ">worker 2<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("sim chart lacks %q", want)
		}
	}
	trace := filepath.Join(dir, "trace.json")
	if out, err := exec.Command(steal, "demo", "-workers", "2", "-tasks", "20", "-size", "1000", "-every", "1s",
		"-trace", trace).CombinedOutput(); err != nil {
		t.Fatalf("steal demo: %v\n%s", err, out)
	}
	code, svg, errs = runWith([]string{"timeline", trace}, "")
	if code != 0 {
		t.Fatalf("charts timeline: code %d: %s", code, errs)
	}
	checkLabels(t, []byte(svg))
	if !strings.Contains(svg, ">steal demo: 20 tasks created on worker 0, 2 workers (-spawn tree)<") {
		t.Error("timeline chart lacks the demo's title")
	}
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runWithin runs the program with a deadline: a check that comes too late
// shows as a run that is still going, and the test fails instead of
// hanging (what is left running ends with the test binary).
func runWithin(t *testing.T, d time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		c, o, e := runWith(args, "")
		done <- result{c, o, e}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(d):
		t.Fatalf("%v: still running after %v", args, d)
		return 0, "", ""
	}
}

// TestStrayArgumentsAreRefused: demo and node ignored arguments after
// their flags, so a mistyped flag value ("-workers 4 8") ran as if it
// were not there; sim already refused them.
func TestStrayArgumentsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"demo", "-tasks", "1", "-size", "0", "extra"},
		{"node", "extra"},
		{"sim", "-jobs", "1", "extra"},
	} {
		code, out, errs := runWithin(t, 10*time.Second, args...)
		if code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) || strings.Contains(out, "summary") {
			t.Errorf("%v: code %d, stderr %q, stdout %q", args, code, errs, out)
		}
	}
}

// TestHelpExitsZero: each command's -h printed its usage and exited 2, as
// for a usage error, though asking for help is not one; steal -h exits 0.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"demo", "-h"}, {"sim", "-help"}, {"node", "--help"}} {
		code, _, errs := runWith(args, "")
		if code != 0 || !strings.Contains(strings.ToLower(errs), "usage") {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}

// TestDemoTraceUnwritableFailsFirst: an unwritable -trace path used to be
// found only after both runs, so the demo's whole run was lost, and the
// message did not name the flag.
func TestDemoTraceUnwritableFailsFirst(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "x.json")
	code, out, errs := runWithin(t, 10*time.Second, "demo", "-tasks", "1", "-size", "0", "-trace", bad)
	if code != 2 || strings.Contains(out, "worker(s)") || !strings.Contains(errs, "-trace") || !strings.Contains(errs, bad) {
		t.Errorf("code %d, stderr %q, stdout %q", code, errs, out)
	}
}

// TestDemoRefusesHugeCounts: -workers and -tasks had no upper bound:
// 10,000 workers ran for minutes on two cores before the first task, 10^8
// took gigabytes, and a billion tasks with -spawn flat queue 65 GB.
func TestDemoRefusesHugeCounts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-workers", "5000"}, fmt.Sprintf("-workers must be in [1, %d], not 5000", maxDemoWorkers)},
		{[]string{"-workers", "-1"}, "-workers must be in [1, "},
		{[]string{"-tasks", "1099511627776", "-size", "0"}, fmt.Sprintf("-tasks must be in [1, %d], not 1099511627776", maxDemoTasks)},
		{[]string{"-size", "-5"}, "-size must not be negative, not -5"},
		{[]string{"-every", "-1s"}, "-every must be at least 1ms, not -1s"},
		// Below a millisecond, which is what schedtrace lines count in,
		// lines came as fast as the clock ticks: megabytes a second.
		{[]string{"-every", "1ns"}, "-every must be at least 1ms, not 1ns"},
		{[]string{"-every", "999us"}, "-every must be at least 1ms, not 999µs"},
		{[]string{"-spawn", "zigzag"}, `-spawn must be tree or flat, not "zigzag"`},
	} {
		code, out, errs := runWithin(t, 5*time.Second, append([]string{"demo", "-tasks", "1"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stderr %q, stdout %q; want %q", c.args, code, errs, out, c.want)
		}
	}
}

// TestSimReportsUnfinishedRuns: a run that reaches the end of virtual time
// (about 292 years) ends with jobs left. The table printed the instant it
// was cut off as its makespan, under a lower bound saturated at the same 292
// years, for a makespan/bound of 0.001, and the JSON said nothing of it.
func TestSimReportsUnfinishedRuns(t *testing.T) {
	args := []string{"sim", "-mean", "100000h", "-jobs", "100000", "-workers", "2", "-cost", "fixed", "-policies", "none"}
	code, out, errs := runWithin(t, 20*time.Second, args...)
	if code != 0 || !strings.Contains(out, "unfinished") || strings.Contains(out, "2562047h") ||
		!strings.Contains(out, "25 of 100000 jobs done") {
		t.Errorf("table: code %d, stderr %q:\n%s", code, errs, out)
	}
	code, out, errs = runWithin(t, 20*time.Second, append(args, "-json")...)
	var got struct {
		Results []struct {
			Finished     *bool    `json:"finished"`
			LowerBoundMS float64  `json:"lower_bound_ms"`
			Ratio        *float64 `json:"makespan_ratio"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Results) != 1 {
		t.Fatalf("json: code %d, %v, stderr %q:\n%s", code, err, errs, out)
	}
	// 100,000 jobs of 100,000 h on two workers: a bound of 5e9 h, 1.8e16 ms.
	r := got.Results[0]
	if r.Finished == nil || *r.Finished || r.LowerBoundMS != 1.8e16 || r.Ratio != nil {
		t.Errorf("json result %+v, want finished false, a lower bound of 1.8e16 ms and no makespan_ratio", r)
	}
	// A finished run says so.
	_, out, _ = runWith([]string{"sim", "-json", "-workers", "2", "-jobs", "10", "-policies", "none"}, "")
	if !strings.Contains(out, `"finished": true`) {
		t.Errorf("finished run:\n%s", out)
	}
}

// fullWriter fails every write, as stdout on a full disk or a closed
// pipe does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestDemoReportsOutputErrors: the demo's output is its product, and it
// exited 0 when none of it could be written (steal demo > /dev/full),
// where sim and node say so and exit 1.
func TestDemoReportsOutputErrors(t *testing.T) {
	var errb strings.Builder
	code := run([]string{"demo", "-workers", "2", "-tasks", "4", "-size", "10"}, nil, fullWriter{}, &errb)
	if code != 1 || !strings.Contains(errb.String(), "steal demo: ") || !strings.Contains(errb.String(), "no space left on device") {
		t.Errorf("code %d, stderr %q; want 1 and the write error", code, errb.String())
	}
}

// TestFlagErrorsAreOneLine: a flag the flag package refused printed its
// error and then the whole usage, which pushed the error off a small
// screen (cluster demo's usage is 70 lines), and a duration without a
// unit said only "parse error", though "5" looks like a number. Each is
// now one line that names the command, the flag and the fault, and says
// where the flags are listed; -h still prints the usage.
func TestFlagErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "-every", "5"}, `steal demo: invalid value "5" for flag -every: missing unit in duration "5"`},
		{[]string{"sim", "-mean", "1.5"}, `steal sim: invalid value "1.5" for flag -mean: missing unit in duration "1.5"`},
		{[]string{"sim", "-steal-latency", "fast"}, `steal sim: invalid value "fast" for flag -steal-latency: invalid duration "fast"`},
		{[]string{"demo", "-bogus"}, "steal demo: flag provided but not defined: -bogus"},
		{[]string{"demo", "-spawn"}, "steal demo: flag needs an argument: -spawn"},
		{[]string{"demo", "-workers", "many"}, `steal demo: invalid value "many" for flag -workers: parse error`},
		{[]string{"node", "-x"}, "steal node: flag provided but not defined: -x"},
	} {
		code, out, errs := runWithin(t, 5*time.Second, c.args...)
		want := c.want + " (" + strings.Join(append([]string{"steal"}, c.args[0]), " ") + " -h lists the flags)\n"
		if code != 2 || out != "" || errs != want {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, want)
		}
	}
	for _, args := range [][]string{{"demo", "-h"}, {"sim", "--help"}} {
		code, _, errs := runWithin(t, 5*time.Second, args...)
		if code != 0 || !strings.Contains(errs, "  -workers int\n") {
			t.Errorf("%q: code %d, stderr %q; want 0 and the flags", args, code, errs)
		}
	}
	code, _, errs := runWithin(t, 5*time.Second, "node", "-h")
	if code != 0 || !strings.HasPrefix(errs, "usage: steal node < messages\n") {
		t.Errorf("node -h: code %d, stderr %q", code, errs)
	}
}

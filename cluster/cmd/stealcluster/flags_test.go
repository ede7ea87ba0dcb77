package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/internal/cli"
)

// TestClusterFlagErrorsNameTheFlag: cluster demo's -depth, -fanout and
// -sleep were refused together, in the tree job's words and Go's syntax
// ("sleep_ms 0 to 10000; got {Depth:3 Fanout:3 SleepMS:20000}" for -sleep
// 20s); -nats "" (an unset variable, quoted) ran the embedded server
// instead of the one asked for, where node and worker refuse it; and
// cluster help was an unknown subcommand, where the program's help is
// the usage.
func TestClusterFlagErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"cluster", "demo", "-depth", "-1"}, 2, "stealcluster cluster demo: -depth must not be negative, not -1\n"},
		{[]string{"cluster", "demo", "-fanout", "11"}, 2, "stealcluster cluster demo: -fanout must be 0 to 10, not 11\n"},
		{[]string{"cluster", "demo", "-fanout", "-1"}, 2, "stealcluster cluster demo: -fanout must be 0 to 10, not -1\n"},
		{[]string{"cluster", "demo", "-sleep", "20s"}, 2, "stealcluster cluster demo: -sleep must be 0 to 10s, not 20s\n"},
		{[]string{"cluster", "demo", "-sleep", "-1ms"}, 2, "stealcluster cluster demo: -sleep must be 0 to 10s, not -1ms\n"},
		{[]string{"cluster", "demo", "-depth", "5", "-fanout", "10"}, 2,
			"stealcluster cluster demo: -depth 5 and -fanout 10 make trees of more than 100000 jobs\n"},
		{[]string{"cluster", "demo", "-nats", ""}, 2, "stealcluster cluster demo: -nats needs a URL\n"},
		{[]string{"cluster", "up", "-nats", ""}, 2, "stealcluster cluster up: -nats needs a URL\n"},
		{[]string{"worker", "-nats", "", "-name", "w1"}, 2, "stealcluster worker: -nats needs a URL\n"},
		{[]string{"cluster", "help"}, 0, "stealcluster cluster up -h and stealcluster cluster demo -h list the flags"},
	} {
		code, out, errs := runWithin(t, 20*time.Second, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) || strings.Contains(errs, "{") {
			t.Errorf("%q: code %d, stderr %q, stdout %q; want %d and %q", tc.args, code, errs, out, tc.code, tc.err)
		}
	}
}

// runWithin is runWith with a deadline: a flag that should have been
// refused and was not (cluster up runs until interrupted) fails the test
// instead of hanging it.
func runWithin(t *testing.T, d time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		c, o, e := runWith(nil, args...)
		done <- result{c, o, e}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(d):
		t.Fatalf("%q: still running after %v", args, d)
		return 0, "", ""
	}
}

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

// TestFlagErrorsAreOneLine: a flag the flag package refused printed its
// error and then the usage, 70 lines for cluster demo, which scrolled the
// error away; -sleep 5 said only "parse error". -h still prints it all.
func TestFlagErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cluster", "demo", "-sleep", "5"},
			`stealcluster cluster demo: invalid value "5" for flag -sleep: missing unit in duration "5" (stealcluster cluster demo -h lists the flags)` + "\n"},
		{[]string{"cluster", "up", "-bogus"}, "stealcluster cluster up: flag provided but not defined: -bogus (stealcluster cluster up -h lists the flags)\n"},
		{[]string{"worker", "-name"}, "stealcluster worker: flag needs an argument: -name (stealcluster worker -h lists the flags)\n"},
		{[]string{"node", "-lease", "3"}, `stealcluster node: invalid value "3" for flag -lease: missing unit in duration "3" (stealcluster node -h lists the flags)` + "\n"},
	} {
		code, out, errs := runWithin(t, 20*time.Second, c.args...)
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	code, _, errs := runWithin(t, 20*time.Second, "cluster", "demo", "-h")
	if code != 0 || !strings.HasPrefix(errs, "usage: stealcluster cluster up") || !strings.Contains(errs, "  -sleep duration\n") {
		t.Errorf("cluster demo -h: code %d, stderr %q", code, errs)
	}
}

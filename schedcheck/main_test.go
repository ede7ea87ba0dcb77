package schedcheck_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/worksteal/steal/schedcheck"
	"github.com/worksteal/steal/schedcheck/internal/repro"
)

// Environment of a child process started by runChild: the workload to run,
// for how long, and a directory to read /proc and the cgroup files from
// instead of the root.
const (
	envWorkload = "SCHEDCHECK_TEST_WORKLOAD"
	envFor      = "SCHEDCHECK_TEST_FOR"
	envFakeRoot = "SCHEDCHECK_TEST_FAKE_ROOT"
)

// TestMain runs a workload instead of the tests when the test binary is
// started as a child process (runChild); otherwise it runs the tests and
// fails them if any goroutine outlives them, a Monitor's included.
func TestMain(m *testing.M) {
	if name := os.Getenv(envWorkload); name != "" {
		os.Exit(child(name))
	}
	goleak.VerifyTestMain(m)
}

func child(name string) int {
	d, err := time.ParseDuration(os.Getenv(envFor))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	var opts []schedcheck.Option
	if root := os.Getenv(envFakeRoot); root != "" {
		opts = append(opts, schedcheck.WithFS(os.DirFS(root)))
	}
	if _, err := repro.Run(name, d, false, os.Stdout, opts...); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	return 0
}

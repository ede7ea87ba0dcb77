package cli

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demoChildEnv makes the test binary, run again as a child process, act
// as "steal demo" with the arguments that follow "--" on its command line.
const demoChildEnv = "STEAL_TEST_DEMO_CHILD"

// TestDemoStopsOnSignal: SIGINT or SIGTERM killed the demo where it stood,
// with no word on stderr, and left the -trace file it had created before
// the runs behind, empty: a file that a trace viewer then refused.
func TestDemoStopsOnSignal(t *testing.T) {
	if os.Getenv(demoChildEnv) == "1" {
		args := os.Args
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(run(args, os.Stdin, os.Stdout, os.Stderr))
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "trace.json")
			// Each task sums 10^12 ints: hours, unless the signal stops it.
			cmd := exec.Command(os.Args[0], "-test.run=^TestDemoStopsOnSignal$", "--",
				"demo", "-workers", "2", "-tasks", "4", "-size", "1000000000000", "-trace", trace)
			cmd.Env = append(os.Environ(), demoChildEnv+"=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			started := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "-- 1 worker(s)") {
						started <- true
					}
				}
			}()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the demo did not start its first run; stderr %q", stderr.String())
			}
			time.Sleep(100 * time.Millisecond) // into the tasks
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after %v", sig)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("after %v: %v, want exit status 1", sig, err)
			}
			if want := "steal demo: " + sig.String() + " signal received"; !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), want)
			}
			if _, err := os.Stat(trace); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the -trace file the demo created is still there after %v (%v)", sig, err)
			}
		})
	}
}

package schedcheck_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/steal/schedcheck"
)

// runChild runs the named workload of package repro in a child process
// (this test binary, see TestMain) for at most d, with GOMAXPROCS unset
// unless env sets it, and returns the names of the findings it printed and
// its whole output. With join set, the child first moves itself into that
// cgroup (a cgroup.procs file), before the Go runtime starts.
func runChild(t *testing.T, name string, d time.Duration, env []string, join string) (names []string, out string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	if join != "" {
		cmd = exec.CommandContext(ctx, "sh", "-c", `echo $$ > "$0" && exec "$@"`, join, os.Args[0])
	} else {
		cmd = exec.CommandContext(ctx, os.Args[0])
	}
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
	cmd.Env = append(cmd.Env, envWorkload+"="+name, envFor+"="+d.String())
	cmd.Env = append(cmd.Env, env...)
	b, err := cmd.CombinedOutput()
	out = string(b)
	if err != nil {
		t.Fatalf("child %s: %v\n%s", name, err, out)
	}
	for line := range strings.Lines(out) {
		if n, _, ok := strings.Cut(strings.TrimPrefix(line, "  "), ": "); ok && strings.HasPrefix(line, "  ") {
			names = append(names, n)
		}
	}
	return names, out
}

// TestWorkloadsShowTheirSymptoms runs the programs that reproduce
// LockOSThread workers, GOMAXPROCS(1) and unbounded goroutine spawning,
// each on 2 Ps, and checks that the Monitor inside reports each one's
// finding. Each stops as soon as it does.
func TestWorkloadsShowTheirSymptoms(t *testing.T) {
	t.Parallel() // with the other children's tests, once TestHealthyProgramIsQuiet has run alone
	for _, tc := range []struct{ workload, want string }{
		{"pinned", "pinned-threads"},
		{"gomaxprocs1", "gomaxprocs-one"},
		{"unbounded", "unbounded-goroutines"},
	} {
		t.Run(tc.workload, func(t *testing.T) {
			if tc.workload == "gomaxprocs1" && runtime.NumCPU() < 2 {
				t.Skip("one CPU: GOMAXPROCS 1 is right here")
			}
			t.Parallel()
			names, out := runChild(t, tc.workload, 5*time.Second, []string{"GOMAXPROCS=2"}, "")
			t.Logf("%s", out)
			if !slices.Contains(names, tc.want) {
				t.Errorf("%s: no %s finding:\n%s", tc.workload, tc.want, out)
			}
		})
	}
}

// TestHealthyProgramIsQuiet runs a CPU-bound pool of GOMAXPROCS workers
// serving four clients per P through one channel, at the default
// GOMAXPROCS, for 1.5 s (30 samples), and checks that the Monitor reports
// nothing. It is the one test here that is not parallel, so it runs first
// and alone: no other child takes its CPUs. One finding is let through:
// sched-latency-tail, at the default thresholds, when it says goroutines
// were runnable in most samples while the process ran on less than three
// quarters of the CPUs its Ps could use. Then the machine was short of
// CPU (other processes' tests on a small CI machine), the goroutines
// really did wait, and the finding is right to say so and why.
func TestHealthyProgramIsQuiet(t *testing.T) {
	names, out := runChild(t, "healthy", 1500*time.Millisecond, nil, "")
	t.Logf("%s", out)
	for _, n := range names {
		if n == "sched-latency-tail" && starvedTail(out) {
			t.Logf("the machine kept the healthy program off the CPUs; the latency tail was reported as such")
			continue
		}
		t.Errorf("finding %s for a healthy program:\n%s", n, out)
	}
	m := regexp.MustCompile(`\((\d+) samples\)|in (\d+) samples`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no report:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1] + m[2]); n < 10 {
		t.Errorf("only %d samples in 1.5 s at 50 ms", n)
	}
}

// starvedTail reports whether a report's sched-latency-tail finding says
// goroutines were runnable while the OS kept the process off the CPUs, at
// the default thresholds, with a quantile over its threshold.
func starvedTail(out string) bool {
	m := regexp.MustCompile(`p99 (\S+), p999 (\S+) \(thresholds 25ms, 100ms\)`).FindStringSubmatch(out)
	if m == nil || !regexp.MustCompile(`Goroutines were runnable in \d+ of the \d+ samples while .*: the OS kept its threads off the CPUs`).MatchString(out) {
		return false
	}
	p99, err1 := time.ParseDuration(m[1])
	p999, err2 := time.ParseDuration(m[2])
	return err1 == nil && err2 == nil && (p99 >= 25*time.Millisecond || p999 >= 100*time.Millisecond)
}

// TestContainerQuotaSimulated gives the child a fake /proc and cgroup v2
// tree whose cgroup allows 1 CPU (cpu.max "100000 100000"): with
// GOMAXPROCS=4 it must report container-quota; with GOMAXPROCS=2, which
// is what the runtime itself picks for a 1-CPU quota, nothing.
func TestContainerQuotaSimulated(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, data := range map[string]string{
		"proc/self/cgroup":                    "0::/sim.slice/app\n",
		"proc/self/mountinfo":                 "24 30 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/sim.slice/app/cpu.max": "100000 100000\n",
		"sys/fs/cgroup/sim.slice/cpu.max":     "max 100000\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := envFakeRoot + "=" + root
	names, out := runChild(t, "quota", 5*time.Second, []string{"GOMAXPROCS=4", fake}, "")
	t.Logf("%s", out)
	if !slices.Contains(names, "container-quota") || !strings.Contains(out, "GOMAXPROCS is 4 but the cgroup allows 1 CPU (/sys/fs/cgroup/sim.slice/app/cpu.max;") {
		t.Errorf("GOMAXPROCS 4 under a 1-CPU quota: no container-quota finding with both numbers:\n%s", out)
	}
	names, out = runChild(t, "quota", 300*time.Millisecond, []string{"GOMAXPROCS=2", fake}, "")
	t.Logf("%s", out)
	if slices.Contains(names, "container-quota") || !strings.Contains(out, "CPU quota 1 (/sys/fs/cgroup/sim.slice/app/cpu.max)") {
		t.Errorf("GOMAXPROCS 2 under a 1-CPU quota, the runtime's own choice, was reported or the quota not read:\n%s", out)
	}
}

// TestContainerQuotaRealCgroup makes a real cgroup with a 1-CPU quota
// below the process's own CPU cgroup, runs the child in it with
// GOMAXPROCS=4 and checks that it reads the quota and reports
// container-quota. It needs a writable cgroup hierarchy with the cpu
// controller (root on most machines, not inside most containers) and
// skips without one; it removes the cgroup after.
func TestContainerQuotaRealCgroup(t *testing.T) {
	t.Parallel()
	mount, rel, version, ok := schedcheck.CPUCgroupDir(os.DirFS("/"))
	if !ok {
		t.Skip("no CPU cgroup found")
	}
	dir := filepath.Join(mount, rel, "schedcheck-test-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() {
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing the test cgroup: %v", err)
		}
	})
	var err error
	if version == 1 {
		err = errors.Join(os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte("100000"), 0),
			os.WriteFile(filepath.Join(dir, "cpu.cfs_quota_us"), []byte("100000"), 0))
	} else {
		err = os.WriteFile(filepath.Join(dir, "cpu.max"), []byte("100000 100000"), 0)
	}
	if err != nil {
		t.Skipf("cannot set a CPU quota on cgroup v%d %s: %v", version, dir, err)
	}
	names, out := runChild(t, "quota", 5*time.Second, []string{"GOMAXPROCS=4"}, filepath.Join(dir, "cgroup.procs"))
	t.Logf("cgroup v%d %s:\n%s", version, dir, out)
	if !slices.Contains(names, "container-quota") || !strings.Contains(out, "GOMAXPROCS is 4 but the cgroup allows 1 CPU ("+path.Clean(dir)) {
		t.Errorf("no container-quota finding naming the cgroup:\n%s", out)
	}
}

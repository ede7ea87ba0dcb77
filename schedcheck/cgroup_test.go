package schedcheck

import (
	"math"
	"testing"
	"testing/fstest"
)

// mountinfo lines as Linux writes them, for a cgroup v2 host, a v1 host
// with cpu and cpuacct mounted together, a hybrid host (v1 cpu beside the
// unified v2 tree) and a container whose cgroup mounts are rooted at its
// own cgroup.
const (
	v2Mounts = "24 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n" +
		"30 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	v1Mounts = "31 23 0:28 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n" +
		"35 31 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:16 - cgroup cgroup rw,cpu,cpuacct\n" +
		"36 31 0:33 / /sys/fs/cgroup/memory rw,nosuid shared:17 - cgroup cgroup rw,memory\n"
	hybridMounts = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	containerMounts = "700 690 0:22 /kubepods/pod1/c1 /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n"
)

func TestCPUQuota(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name string
		fs   fstest.MapFS
		cpus float64
		file string
	}{
		{"v2 quota", fstest.MapFS{
			"proc/self/cgroup":          file("0::/app\n"),
			"proc/self/mountinfo":       file(v2Mounts),
			"sys/fs/cgroup/cpu.max":     file("max 100000\n"),
			"sys/fs/cgroup/app/cpu.max": file("150000 100000\n"),
		}, 1.5, "/sys/fs/cgroup/app/cpu.max"},
		{"v2 no quota", fstest.MapFS{
			"proc/self/cgroup":          file("0::/app\n"),
			"proc/self/mountinfo":       file(v2Mounts),
			"sys/fs/cgroup/app/cpu.max": file("max 100000\n"),
		}, 0, ""},
		{"v2 parent's quota is lower", fstest.MapFS{
			"proc/self/cgroup":                file("0::/slice/app\n"),
			"proc/self/mountinfo":             file(v2Mounts),
			"sys/fs/cgroup/slice/cpu.max":     file("100000 100000\n"),
			"sys/fs/cgroup/slice/app/cpu.max": file("400000 100000\n"),
		}, 1, "/sys/fs/cgroup/slice/cpu.max"},
		{"v2 at the root", fstest.MapFS{
			"proc/self/cgroup":      file("0::/\n"),
			"proc/self/mountinfo":   file(v2Mounts),
			"sys/fs/cgroup/cpu.max": file("50000 100000\n"),
		}, 0.5, "/sys/fs/cgroup/cpu.max"},
		{"v1 cpu,cpuacct quota", fstest.MapFS{
			"proc/self/cgroup":    file("5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n"),
			"proc/self/mountinfo": file(v1Mounts),
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  file("200000\n"),
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": file("100000\n"),
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":             file("-1\n"),
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us":            file("100000\n"),
		}, 2, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us"},
		{"v1 no quota (-1)", fstest.MapFS{
			"proc/self/cgroup":    file("4:cpu,cpuacct:/docker/abc\n"),
			"proc/self/mountinfo": file(v1Mounts),
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  file("-1\n"),
			"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": file("100000\n"),
		}, 0, ""},
		{"hybrid: v1 cpu wins over v2", fstest.MapFS{
			"proc/self/cgroup":                      file("1:cpu:/x\n0::/x\n"),
			"proc/self/mountinfo":                   file(hybridMounts),
			"sys/fs/cgroup/cpu/x/cpu.cfs_quota_us":  file("50000\n"),
			"sys/fs/cgroup/cpu/x/cpu.cfs_period_us": file("100000\n"),
			"sys/fs/cgroup/unified/x/cpu.max":       file("300000 100000\n"),
		}, 0.5, "/sys/fs/cgroup/cpu/x/cpu.cfs_quota_us"},
		{"hybrid, v2 line first", fstest.MapFS{
			"proc/self/cgroup":                      file("0::/x\n1:cpu:/x\n"),
			"proc/self/mountinfo":                   file(hybridMounts),
			"sys/fs/cgroup/cpu/x/cpu.cfs_quota_us":  file("50000\n"),
			"sys/fs/cgroup/cpu/x/cpu.cfs_period_us": file("100000\n"),
			"sys/fs/cgroup/unified/x/cpu.max":       file("300000 100000\n"),
		}, 0.5, "/sys/fs/cgroup/cpu/x/cpu.cfs_quota_us"},
		{"container: mount rooted at its cgroup", fstest.MapFS{
			"proc/self/cgroup":      file("0::/kubepods/pod1/c1\n"),
			"proc/self/mountinfo":   file(containerMounts),
			"sys/fs/cgroup/cpu.max": file("250000 100000\n"),
		}, 2.5, "/sys/fs/cgroup/cpu.max"},
		{"container: cgroup outside the mount", fstest.MapFS{
			"proc/self/cgroup":      file("0::/kubepods/pod2/c9\n"),
			"proc/self/mountinfo":   file(containerMounts),
			"sys/fs/cgroup/cpu.max": file("250000 100000\n"),
		}, 0, ""},
		{"escaped mount point", fstest.MapFS{
			"proc/self/cgroup":        file("0::/a\n"),
			"proc/self/mountinfo":     file(`24 30 0:22 / /my\040cgroup rw - cgroup2 cgroup2 rw` + "\n"),
			"my cgroup/a/cpu.max":     file("100000 100000\n"),
			"sys/fs/cgroup/a/cpu.max": file("900000 100000\n"),
		}, 1, "/my cgroup/a/cpu.max"},
		{"garbage quota", fstest.MapFS{
			"proc/self/cgroup":        file("0::/a\n"),
			"proc/self/mountinfo":     file(v2Mounts),
			"sys/fs/cgroup/a/cpu.max": file("lots\n"),
		}, 0, ""},
		{"no cgroup file (not Linux)", fstest.MapFS{}, 0, ""},
		{"no mountinfo", fstest.MapFS{"proc/self/cgroup": file("0::/a\n")}, 0, ""},
		{"no cpu controller", fstest.MapFS{
			"proc/self/cgroup":    file("5:memory:/docker/abc\n"),
			"proc/self/mountinfo": file(v1Mounts),
		}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpus, file := cpuQuota(tc.fs)
			if cpus != tc.cpus || file != tc.file {
				t.Errorf("got %v CPUs from %q, want %v from %q", cpus, file, tc.cpus, tc.file)
			}
		})
	}
}

// TestQuotaProcs pins the runtime's rule for its default GOMAXPROCS under
// a quota (runtime/cgroup_linux.go): rounded up, at least 2.
func TestQuotaProcs(t *testing.T) {
	for cpus, want := range map[float64]int{0.1: 2, 1: 2, 1.01: 2, 2: 2, 2.5: 3, 3: 3, 15.2: 16,
		1e10: math.MaxInt32, 9223372036854775807: math.MaxInt32, math.Inf(1): math.MaxInt32} {
		if got := quotaProcs(cpus); got != want {
			t.Errorf("quotaProcs(%v) = %d, want %d", cpus, got, want)
		}
	}
}

// BenchmarkQuotaRead is what reading the quota from the files costs, which
// a Sample pays at most once a second (quotaTTL).
func BenchmarkQuotaRead(b *testing.B) {
	for b.Loop() {
		cpuQuota(rootFS)
	}
}

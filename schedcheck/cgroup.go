package schedcheck

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"
)

// cpuQuota returns the CPU bandwidth the process's cgroup allows, in CPUs
// (quota/period), and the file it came from; 0 and "" when there is no
// quota or it cannot be read. It finds the cgroup the way the Go runtime
// does (internal/runtime/cgroup): the cgroup v1 hierarchy with the cpu
// controller if /proc/self/cgroup names one, else the v2 hierarchy, located
// through /proc/self/mountinfo. Unlike the runtime, which reads only the
// process's own cgroup, it also reads every ancestor up to the mount's
// root and keeps the smallest quota, since the kernel enforces each of
// them. Paths are relative to fsys (the root directory in production).
func cpuQuota(fsys fs.FS) (cpus float64, file string) {
	mount, rel, version, ok := cpuCgroupDir(fsys)
	if !ok {
		return 0, ""
	}
	// Walk from the process's cgroup up to the root of the mount.
	for dir := rel; ; dir = path.Dir(dir) {
		p := strings.TrimPrefix(path.Join(mount, dir), "/")
		if q, ok := readQuota(fsys, p, version); ok && (cpus == 0 || q < cpus) {
			cpus, file = q, "/"+p+quotaFileName(version)
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	return cpus, file
}

// cpuCgroupDir returns the mount point of the hierarchy that holds the
// process's CPU cgroup, the cgroup's path below it, and the cgroup
// version (1 or 2).
func cpuCgroupDir(fsys fs.FS) (mount, rel string, version int, ok bool) {
	cg, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return "", "", 0, false
	}
	version, cgPath := cpuCgroup(cg)
	if version == 0 {
		return "", "", 0, false
	}
	info, err := fs.ReadFile(fsys, "proc/self/mountinfo")
	if err != nil {
		return "", "", 0, false
	}
	mount, rel, ok = cgroupMount(info, version, cgPath)
	return mount, rel, version, ok
}

func quotaFileName(version int) string {
	if version == 1 {
		return "/cpu.cfs_quota_us"
	}
	return "/cpu.max"
}

// cpuCgroup picks the CPU cgroup from /proc/self/cgroup, whose lines are
// hierarchy-ID:controller-list:path. A v1 hierarchy whose controllers
// include cpu wins; otherwise the v2 line (ID 0), if any. version is 0 when
// there is neither.
func cpuCgroup(data []byte) (version int, cgPath string) {
	for line := range strings.Lines(string(data)) {
		id, rest, ok1 := strings.Cut(strings.TrimRight(line, "\n"), ":")
		ctrls, p, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 || !strings.HasPrefix(p, "/") {
			continue
		}
		if id == "0" && ctrls == "" {
			version, cgPath = 2, p
			continue
		}
		for c := range strings.SplitSeq(ctrls, ",") {
			if c == "cpu" {
				return 1, p
			}
		}
	}
	return version, cgPath
}

// cgroupMount finds in /proc/self/mountinfo the mount of the given cgroup
// version (cgroup with the cpu super option for v1, cgroup2 for v2) whose
// root contains cgPath, and returns its mount point and cgPath relative to
// the mount's root. Fields: ID parent major:minor root mountpoint options
// [optional...] - fstype source superoptions (proc_pid_mountinfo(5)).
func cgroupMount(data []byte, version int, cgPath string) (mount, rel string, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		sep := -1
		for i, x := range f {
			if x == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || sep+3 > len(f) {
			continue
		}
		fstype := f[sep+1]
		switch {
		case version == 2 && fstype == "cgroup2":
		case version == 1 && fstype == "cgroup" && sep+3 < len(f) && hasOption(f[sep+3], "cpu"):
		default:
			continue
		}
		root, point := unescape(f[3]), unescape(f[4])
		switch {
		case root == "/":
			rel = cgPath
		case cgPath == root:
			rel = "/"
		case strings.HasPrefix(cgPath, root+"/"):
			rel = strings.TrimPrefix(cgPath, root)
		default:
			continue
		}
		if rel == "/.." || strings.HasPrefix(rel, "/../") {
			continue // outside this cgroup namespace's view
		}
		return point, rel, true
	}
	return "", "", false
}

func hasOption(opts, name string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// unescape undoes mountinfo's octal escapes (\040 for a space, and so on).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readQuota reads one cgroup directory's quota in CPUs: cpu.max
// ("max 100000" or "50000 100000") for v2, cpu.cfs_quota_us (-1 for none)
// over cpu.cfs_period_us for v1.
func readQuota(fsys fs.FS, dir string, version int) (float64, bool) {
	if version == 2 {
		b, err := fs.ReadFile(fsys, path.Join(dir, "cpu.max"))
		if err != nil {
			return 0, false
		}
		q, p, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
		if !ok || q == "max" {
			return 0, false
		}
		return ratio(q, p)
	}
	qb, err1 := fs.ReadFile(fsys, path.Join(dir, "cpu.cfs_quota_us"))
	pb, err2 := fs.ReadFile(fsys, path.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return ratio(strings.TrimSpace(string(qb)), strings.TrimSpace(string(pb)))
}

func ratio(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false // -1 (v1's "no quota") lands here too
	}
	return float64(q) / float64(p), true
}

// quotaProcs is the GOMAXPROCS the Go runtime (1.25 and later) picks by
// default for a quota of cpus: the quota rounded up, and at least 2
// (runtime/cgroup_linux.go, adjustCgroupGOMAXPROCS). The runtime then
// lowers it further to the CPU count, which this check does not need.
// A quota of MaxInt32 CPUs or more is one no GOMAXPROCS (an int32 in the
// runtime) can exceed; converting it to int is not defined in Go and gave
// math.MinInt64 on amd64, hence 2, for a cpu.max of
// "9223372036854775807 1" or a hand-made +Inf.
func quotaProcs(cpus float64) int {
	if cpus >= math.MaxInt32 {
		return math.MaxInt32
	}
	return max(int(math.Ceil(cpus)), 2)
}

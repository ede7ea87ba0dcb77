package schedcheck

// For the tests of package schedcheck_test: a Monitor over a fake /proc and
// cgroup tree, and where the process's CPU cgroup is.
var (
	WithFS       = withFS
	CPUCgroupDir = cpuCgroupDir
)

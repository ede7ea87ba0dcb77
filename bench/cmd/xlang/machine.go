package main

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// machine describes where and on what code a run was taken.
type machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	Memory    string `json:"memory"`
	OS        string `json:"os"`
	LoadStart string `json:"load_start"` // /proc/loadavg before and after
	LoadEnd   string `json:"load_end"`
	Commit    string `json:"commit"` // steal's commit, and whether the tree had changes
	Date      string `json:"date"`
}

func describeMachine() machine {
	return machine{
		CPU:       orUnknown(procField("/proc/cpuinfo", "model name")),
		Cores:     runtime.NumCPU(),
		Memory:    orUnknown(procField("/proc/meminfo", "MemTotal")),
		OS:        orUnknown(osName()),
		LoadStart: loadavg(),
		Commit:    commit(),
		Date:      time.Now().UTC().Format("2006-01-02 15:04 UTC"),
	}
}

// procField is the value of the first "key: value" line of a /proc file.
func procField(file, key string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `\s*:\s*(.+)$`).FindSubmatch(b)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(string(m[1]))
}

// osName is the distribution's name and the kernel's release.
func osName() string {
	var name string
	b, _ := os.ReadFile("/etc/os-release")
	if m := regexp.MustCompile(`(?m)^PRETTY_NAME="?([^"\n]+)`).FindSubmatch(b); m != nil {
		name = string(m[1])
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(name + ", Linux " + strings.TrimSpace(string(kernel)))
}

// loadavg is the 1, 5 and 15 minute load averages.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// commit is the checked-out commit of the repository, marked if the
// working tree differs from it.
func commit() string {
	c := strings.TrimSpace(output("git", "rev-parse", "--short", "HEAD"))
	if c == "" || strings.Contains(c, " ") {
		return "unknown"
	}
	if strings.TrimSpace(output("git", "status", "--porcelain", "--", "..")) != "" {
		c += " with uncommitted changes"
	}
	return c
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

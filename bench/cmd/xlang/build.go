package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// toolchain is what building one language's programs gave.
type toolchain struct {
	Lang    string   `json:"lang"`
	Skipped string   `json:"skipped,omitempty"` // why it is left out; "" if built
	Version string   `json:"version,omitempty"`
	argv    []string // the built program, to which a run appends its arguments
	env     []string // added to the environment of every run
}

// installHint says how to get a language's toolchain on Debian.
var installHint = map[string]string{
	"rust": "apt-get install rustc cargo librust-rayon-dev",
	"java": "apt-get install default-jdk-headless",
}

// build builds lang's programs from the bench directory dir into out, or
// says why it cannot. A missing toolchain is not an error: the language is
// skipped, with a message naming what is missing and how to install it.
func build(lang, dir, out string) toolchain {
	tc := toolchain{Lang: lang}
	need := map[string][]string{"go": {"go"}, "rust": {"cargo", "rustc"}, "java": {"javac", "java"}}[lang]
	for _, tool := range need {
		if _, err := exec.LookPath(tool); err != nil {
			tc.Skipped = fmt.Sprintf("%s not found on PATH (%s; see xlang/README.md)", tool, installHint[lang])
			return tc
		}
	}
	var err error
	switch lang {
	case "go":
		bin := filepath.Join(out, "bench")
		err = command(dir, nil, "go", "build", "-o", bin, ".")
		tc.argv, tc.Version = []string{bin}, firstLine(output("go", "version"))
	case "rust":
		// Resolve afresh: a Cargo.lock written by a newer cargo stops an
		// older one (Debian's) from building, and resolving is local.
		os.Remove(filepath.Join(dir, "xlang", "rust", "Cargo.lock"))
		target := filepath.Join(out, "rust")
		err = command(filepath.Join(dir, "xlang", "rust"), []string{"CARGO_TARGET_DIR=" + target},
			"cargo", "build", "--release", "--offline")
		tc.argv = []string{filepath.Join(target, "release", "xlang")}
		tc.Version = firstLine(output("rustc", "--version")) + ", rayon " + lockedVersion(filepath.Join(dir, "xlang", "rust", "Cargo.lock"), "rayon")
	case "java":
		classes := filepath.Join(out, "java")
		srcs, _ := filepath.Glob(filepath.Join(dir, "xlang", "java", "*.java"))
		err = command(dir, nil, "javac", append([]string{"-d", classes}, srcs...)...)
		// Deep trees recurse thousands of levels on a ForkJoinPool worker.
		tc.argv = []string{"java", "-Xss256m", "-cp", classes, "Xlang"}
		tc.Version = strings.Join(strings.Fields(firstLine(output("java", "-version"))), " ")
	}
	if err != nil {
		tc.Skipped = "build failed: " + err.Error()
	}
	return tc
}

// command runs name in dir and returns an error carrying the tail of its
// output if it fails.
func command(dir string, env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(b.String(), 15))
	}
	return nil
}

// output is what name prints on stdout and stderr, or "".
func output(name string, args ...string) string {
	b, _ := exec.Command(name, args...).CombinedOutput()
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// lockedVersion reads a package's version from a Cargo.lock, or "?".
func lockedVersion(lockFile, pkg string) string {
	b, err := os.ReadFile(lockFile)
	if err != nil {
		return "?"
	}
	re := regexp.MustCompile(`name = "` + regexp.QuoteMeta(pkg) + `"\nversion = "([^"]+)"`)
	if m := re.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return "?"
}

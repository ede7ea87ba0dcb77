package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary doubles as stealvet: with STEALVET_AS_MAIN set it
// runs main, so the tests can drive the real command (standalone and
// under go vet) without building it.
func TestMain(m *testing.M) {
	if os.Getenv("STEALVET_AS_MAIN") != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// One message prefix per analyzer of testdata/prog.
var prefixes = map[string]string{
	"lockthread":     "LockOSThread starvation",
	"maxprocsone":    "GOMAXPROCS(1) surprise",
	"callfreeloop":   "call-free busy-wait",
	"selectspin":     "channel-driven spin",
	"containerprocs": "GOMAXPROCS(NumCPU()) in a container",
}

// prog copies testdata/prog to a fresh directory, so that -fix cannot
// touch the original.
func prog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "main.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "prog", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func stealvet(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if name == "" {
		name = self
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STEALVET_AS_MAIN=1", "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out)
}

func TestStandaloneReportsEveryAnalyzer(t *testing.T) {
	out := stealvet(t, prog(t), "", "./...")
	for name, p := range prefixes {
		if !strings.Contains(out, p) {
			t.Errorf("%s: no %q in output:\n%s", name, p, out)
		}
	}
}

func TestSwitchOffByName(t *testing.T) {
	out := stealvet(t, prog(t), "", "-maxprocsone=false", "-selectspin=false", "./...")
	for name, p := range prefixes {
		off := name == "maxprocsone" || name == "selectspin"
		if strings.Contains(out, p) == off {
			t.Errorf("%s (off=%v): output:\n%s", name, off, out)
		}
	}
}

func TestGoVetTool(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := stealvet(t, prog(t), "go", "vet", "-vettool="+self, "./...")
	for name, p := range prefixes {
		if !strings.Contains(out, p) {
			t.Errorf("%s: no %q in go vet output:\n%s", name, p, out)
		}
	}
}

func TestFix(t *testing.T) {
	dir := prog(t)
	stealvet(t, dir, "", "-fix", "./...")
	b, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	// maxprocsone deletes GOMAXPROCS(1) from init, containerprocs
	// GOMAXPROCS(NumCPU()) from main; selectspin removes the empty
	// default.
	for _, gone := range []string{"GOMAXPROCS(1)", "GOMAXPROCS(runtime.NumCPU())", "default:"} {
		if strings.Contains(src, gone) {
			t.Errorf("-fix left %q:\n%s", gone, src)
		}
	}
	if !strings.Contains(src, "runtime.LockOSThread()") {
		t.Errorf("-fix result:\n%s", src)
	}
	build := exec.Command("go", "build", "-o", os.DevNull, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("fixed program does not build: %v\n%s\n%s", err, out, src)
	}
}

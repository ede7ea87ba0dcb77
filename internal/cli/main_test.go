package cli

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"
)

func runWith(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{nil, 2, "", "usage: steal"},
		{[]string{"fly"}, 2, "", `unknown command "fly"`},
		{[]string{"help"}, 0, "commands:", ""},
		// help COMMAND is COMMAND -h: its usage and flags, exit 0.
		{[]string{"help", "demo"}, 0, "", "-workers"},
		{[]string{"help", "sim"}, 0, "", "-policies"},
		{[]string{"help", "fly"}, 2, "", `unknown command "fly"`},
		{[]string{"help", "demo", "sim"}, 2, "", "help takes one command"},
		// help about help is the list of commands, as help alone.
		{[]string{"help", "help"}, 0, "commands:", ""},
		{[]string{"help", "-h"}, 0, "commands:", ""},
		{[]string{"help", "--help"}, 0, "commands:", ""},
		{[]string{"cluster", "demo"}, 2, "", "steal cluster: this build leaves out NATS"},
		{[]string{"worker", "-nats", "nats://x"}, 2, "", "go install github.com/worksteal/steal/cluster/cmd/stealcluster@latest"},
		{[]string{"node", "--nats", "nats://x"}, 2, "", "steal node --nats: this build leaves out NATS"},
		{[]string{"node", "-nats=nats://x"}, 2, "", "cd cluster && go run ./cmd/stealcluster"},
	} {
		code, out, errs := runWith(tc.args, "")
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: code %d out %q err %q", tc.args, code, out, errs)
		}
	}
}

func TestExtraCommandsReplaceAndAdd(t *testing.T) {
	called := ""
	cmd := func(name string) Command {
		return Command{name, "the " + name, func(args []string, _ io.Reader, _, _ io.Writer) int {
			called = name + " " + strings.Join(args, " ")
			return 0
		}}
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"cluster", "up"}, nil, &out, &errb, cmd("cluster"), cmd("extra")); code != 0 || called != "cluster up" {
		t.Fatalf("cluster: code %d, called %q, stderr %q", code, called, errb.String())
	}
	Run([]string{"help"}, nil, &out, &errb, cmd("cluster"), cmd("extra"))
	if u := out.String(); strings.Count(u, "  cluster ") != 1 || strings.Contains(u, "full program only) run a NATS") || !strings.Contains(u, "  extra   the extra\n") || !strings.Contains(u, "  demo    run") {
		t.Fatalf("usage:\n%s", u)
	}
}

func TestAsksNATS(t *testing.T) {
	for args, want := range map[string]bool{"-nats x": true, "--nats=x": true, "-natsy": false, "x -nats": false, "-- -nats": false, "": false} {
		if got := asksNATS(strings.Fields(args)); got != want {
			t.Errorf("%q: %v", args, got)
		}
	}
}

// TestImportsOnlyStandardLibrary keeps the program free of dependencies
// outside this module: go run ./cmd/steal then downloads nothing, and a
// first run from an empty module cache takes only the compile. Charts,
// which need a plotting library, are drawn by bench/cmd/charts instead.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	// The program and every library package of the root module (the NATS
	// tier, the Prometheus collector and the vet tool are modules of their
	// own, so that the library stays free of their dependencies).
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".",
		"github.com/worksteal/steal/cmd/steal", "github.com/worksteal/steal", "github.com/worksteal/steal/deque",
		"github.com/worksteal/steal/coord", "github.com/worksteal/steal/node", "github.com/worksteal/steal/sim",
		"github.com/worksteal/steal/schedcheck").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/worksteal/steal" && !strings.HasPrefix(pkg, "github.com/worksteal/steal/") {
			t.Errorf("steal imports %s", pkg)
		}
	}
}

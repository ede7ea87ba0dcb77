package main

import (
	"bytes"
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
	} {
		code, out, errs := runWith(tc.args, "")
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: code %d out %q err %q", tc.args, code, out, errs)
		}
	}
}

// TestImportsOnlyStandardLibrary keeps the program free of dependencies
// outside this module: go run ./cmd/steal then downloads nothing, and a
// first run from an empty module cache takes only the compile. Charts,
// which need a plotting library, are drawn by bench/cmd/charts instead.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/worksteal/steal" && !strings.HasPrefix(pkg, "github.com/worksteal/steal/") {
			t.Errorf("steal imports %s", pkg)
		}
	}
}

package main

import (
	"bytes"
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

package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/worksteal/steal/node"
)

// The reader frames input as steal node does: blank lines skipped, a
// value may span lines, bad and over-long input is reported and skipped,
// and reading goes on after it.
func TestLineReader(t *testing.T) {
	long := `{"pad": "` + strings.Repeat("x", node.MaxMessageBytes) + `"}`
	in := "\n{\"a\": 1}\n\n{\"b\":\n  [1,\n   2]}\nnot json\n" + long + "\n{\"c\": 3}\n{\"d\":"
	want := []string{`{"a": 1}`, "{\"b\":\n  [1,\n   2]}", "skip: line 7: not JSON: ",
		"skip: line 8: message longer than 1048576 bytes", `{"c": 3}`, "skip: line 10: input ended inside a JSON value"}
	r := newLineReader(strings.NewReader(in))
	for i := 0; ; i++ {
		msg, err := r.next()
		var skip *errSkip
		got := string(msg)
		switch {
		case err == io.EOF:
			if i != len(want) {
				t.Fatalf("%d values, want %d", i, len(want))
			}
			return
		case errors.As(err, &skip):
			got = "skip: " + skip.text
		case err != nil:
			t.Fatal(err)
		}
		if i >= len(want) || got != want[i] && !(strings.HasPrefix(want[i], "skip: ") && strings.HasPrefix(got, want[i])) {
			t.Fatalf("value %d: %.80q", i, got)
		}
	}
}

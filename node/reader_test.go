package node

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// values reads everything and returns the values and the skip reasons.
func values(t *testing.T, input string, limit int) (vals, skips []string) {
	t.Helper()
	v := newReader(strings.NewReader(input), limit)
	for {
		b, err := v.Next()
		var s *SkipError
		switch {
		case err == io.EOF:
			return vals, skips
		case errors.As(err, &s):
			skips = append(skips, s.Error())
		case err != nil:
			t.Fatal(err)
		default:
			vals = append(vals, string(b))
		}
	}
}

func TestReaderOneValuePerLine(t *testing.T) {
	vals, skips := values(t, "{\"a\": 1}\r\n\n  \n[1,2]\n{\"b\": \"}\"}", 100)
	want := []string{`{"a": 1}`, `[1,2]`, `{"b": "}"}`}
	if strings.Join(vals, "|") != strings.Join(want, "|") || skips != nil {
		t.Fatalf("vals %q skips %q", vals, skips)
	}
}

func TestReaderJoinsValuesSpreadOverLines(t *testing.T) {
	vals, skips := values(t, "{\n  \"a\": [\n 1,\n \"x]\"\n ]\n}\n{\"b\": 2}\n", 100)
	if len(vals) != 2 || vals[0] != "{\n  \"a\": [\n 1,\n \"x]\"\n ]\n}" || vals[1] != `{"b": 2}` || skips != nil {
		t.Fatalf("vals %q skips %q", vals, skips)
	}
}

func TestReaderSkipsInvalidInput(t *testing.T) {
	for name, tc := range map[string]struct {
		input string
		vals  int
		skip  string
	}{
		"garbage prefix":       {"{\"a\" x\n{\"ok\": 1}\n", 1, "line 1: invalid JSON"},
		"unterminated string":  {"{\"a\": \"x\n", 1, ""}, // handed over; the decoder rejects it
		"cut short then new":   {"{\"a\": 1,\n{\"ok\": 1}\n", 1, "line 1: JSON value cut short"},
		"cut short then start": {"{\"a\": 1,\n{\n\"ok\": 1}\n", 1, "line 1: JSON value cut short"},
		"broken continuation":  {"{\"a\": 1,\nx {\n", 0, "line 2: invalid JSON"},
		"over-closed":          {"{\"a\":\n]]\n", 1, ""}, // handed over; the decoder rejects it
		// Ambiguous: a cut-short value followed by a one-line message is a
		// valid prefix, so the two are read as one value that never ends.
		"ambiguous cut":       {"{\"a\":\n{\"ok\": 1}\n", 0, "line 3: input ended inside"},
		"ends inside a value": {"{\"a\":\n", 0, "line 2: input ended inside"},
		"complete then open":  {"{} {\n", 0, "line 1: invalid JSON"},
	} {
		vals, skips := values(t, tc.input, 100)
		if len(vals) != tc.vals {
			t.Errorf("%s: %d values %q, want %d", name, len(vals), vals, tc.vals)
		}
		if tc.skip != "" && (len(skips) != 1 || !strings.HasPrefix(skips[0], tc.skip)) {
			t.Errorf("%s: skips %q, want one starting %q", name, skips, tc.skip)
		}
	}
}

func TestReaderDropsOverLongLinesInChunks(t *testing.T) {
	const limit = 100 << 10 // above the 64 KiB bufio buffer: exercises chunking
	long := `{"pad": "` + strings.Repeat("x", 3*limit) + `"}`
	fits := `{"pad": "` + strings.Repeat("y", limit-20) + `"}`
	vals, skips := values(t, long+"\n{\"ok\": 1}\n"+fits+"\n", limit)
	if len(vals) != 2 || vals[0] != `{"ok": 1}` || vals[1] != fits {
		t.Fatalf("got %d values", len(vals))
	}
	if len(skips) != 1 || !strings.Contains(skips[0], "line 1: line longer than") {
		t.Fatalf("skips %q", skips)
	}
	v := newReader(strings.NewReader(long), limit)
	if _, err := v.Next(); err == nil || cap(v.long) > 2*limit {
		t.Fatalf("err %v, buffer grew to %d bytes", err, cap(v.long))
	}
}

func TestReaderLimitsMultiLineValues(t *testing.T) {
	in := "[\n" + strings.Repeat("1,\n", 60) + "1]\n{\"ok\": 1}\n"
	vals, skips := values(t, in, 100)
	if len(skips) < 1 || !strings.Contains(skips[0], "longer than 100 bytes") {
		t.Fatalf("skips %q", skips)
	}
	if vals[len(vals)-1] != `{"ok": 1}` {
		t.Fatalf("lost the message after the long value: %q", vals)
	}
}

// Framing a value spread over lines takes time linear in its size. Before,
// the value so far was re-checked after every line while under 64 KiB: a
// 65 KB message of 65,000 lines took about 6 s of CPU.
func TestReaderFramesInLinearTime(t *testing.T) {
	msg := `{"src": "c", "dest": "n", "body": {"type": "check_cluster_state",` + strings.Repeat("\n", 65000) + `"msg_id": 1}}`
	start := time.Now()
	vals, skips := values(t, msg+"\n", MaxMessageBytes)
	if took := time.Since(start); took > time.Second {
		t.Errorf("framing took %v", took)
	}
	if len(vals) != 1 || len(vals[0]) != len(msg) || skips != nil {
		t.Fatalf("%d values, skips %q", len(vals), skips)
	}
}

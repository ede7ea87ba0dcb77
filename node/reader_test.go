package node

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/worksteal/steal/internal/cputime"
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
		"ambiguous cut":       {"{\"a\":\n{\"ok\": 1}\n", 0, "line 2: input ended inside"},
		"ends inside a value": {"{\"a\":\n", 0, "line 1: input ended inside"},
		"ends inside, no eol": {"{\"a\":\n\n[", 0, "line 3: input ended inside"},
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

// A value spread over lines that grows past the limit is skipped whole,
// one report where it ends, however much of it follows: nothing inside it
// is taken for a message. Before, the lines after the cut were read as new
// messages, one report each, and a whole message among them was executed.
func TestReaderSkipsOverLongMultiLineValuesWhole(t *testing.T) {
	inner := `{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 666, "workers": ["evil"]}}`
	pad := func(n int) string { return `  "` + strings.Repeat("x", n) + `",` + "\n" }
	const big = 100 << 10 // above the 64 KiB bufio buffer: long lines come in chunks
	for name, tc := range map[string]struct {
		input string
		limit int
		skip  string
	}{
		// 20 lines of 106 bytes: over 1000 on line 11, closed on line 25.
		"short lines": {"{\n \"payload\": [\n" + strings.Repeat(pad(100), 20) + inner + "\n ]\n}\n", 1000, "line 25: JSON value longer than 1000 bytes"},
		// A pretty-printed push_job over the limit with an init on a line
		// of its own inside it, which must not be executed.
		"init inside": {"{\n  \"src\": \"c\",\n  \"body\": {\n    \"payload\": [\n" + strings.Repeat(pad(1000), 1100) + inner + "\n    ]\n  }\n}\n",
			MaxMessageBytes, "line 1108: JSON value longer than 1048576 bytes"},
		// An over-long line that opens a value: its lines go with it.
		"opened by a long line": {`{"payload": ["` + strings.Repeat("x", 2*big) + `",` + "\n" + inner + "\n]}\n", big, "line 3: JSON value longer than 102400 bytes"},
		// An over-long line inside a value.
		"long line inside": {"{\"payload\": [\n" + pad(2*big) + inner + "\n]}\n", big, "line 4: JSON value longer than 102400 bytes"},
		"long last line":   {"{\"payload\": [\n" + inner + ",\n" + `"` + strings.Repeat("x", 2*big) + `"]}` + "\n", big, "line 3: JSON value longer than 102400 bytes"},
		"long line, CRLF":  {"{\"payload\": [\r\n" + pad(2*big) + inner + "\r\n]}\r\n", big, "line 4: JSON value longer than 102400 bytes"},
		// One that breaks off is cut short there; what follows is read.
		"cut short": {"[\n" + strings.Repeat(pad(100), 20) + `"x"` + "\n", 1000, "line 22: JSON value longer than 1000 bytes"},
	} {
		vals, skips := values(t, tc.input+`{"ok": 1}`+"\n", tc.limit)
		if len(vals) != 1 || vals[0] != `{"ok": 1}` {
			t.Errorf("%s: %d values, want only the one after the long value: %.200q", name, len(vals), vals)
		}
		if len(skips) != 1 || !strings.HasPrefix(skips[0], tc.skip) {
			t.Errorf("%s: %d skips, want one starting %q: %.300q", name, len(skips), tc.skip, skips)
		}
	}
	// Ending inside an over-long value is one report too.
	_, skips := values(t, "[\n"+strings.Repeat(pad(100), 20), 1000)
	if len(skips) != 1 || skips[0] != "line 21: input ended inside a JSON value longer than 1000 bytes" {
		t.Errorf("skips %q", skips)
	}
	// An over-long line that is no JSON prefix is skipped alone, even with
	// a bracket open, and so is one whose brackets close.
	for _, long := range []string{strings.Repeat("x", 2*big) + "[", `{"a": "` + strings.Repeat("x", 2*big) + `"}`, "[" + strings.Repeat("1,", big) + "x"} {
		vals, skips := values(t, long+"\n"+`{"ok": 1}`+"\n", big)
		if len(vals) != 1 || len(skips) != 1 || skips[0] != "line 1: line longer than 102400 bytes" {
			t.Errorf("%.20s...: values %.100q, skips %q", long, vals, skips)
		}
	}
}

// Framing a value spread over lines takes time linear in its size. Before,
// the value so far was re-checked after every line while under 64 KiB: a
// 65 KB message of 65,000 lines took about 6 s of CPU. The bound is on the
// CPU time the process used, not on the wall clock, which a loaded machine
// stretches (0.28 s of it for some 25 ms of work, four loaded copies on
// two cores).
func TestReaderFramesInLinearTime(t *testing.T) {
	msg := `{"src": "c", "dest": "n", "body": {"type": "check_cluster_state",` + strings.Repeat("\n", 65000) + `"msg_id": 1}}`
	start, cpu := time.Now(), cputime.Process(t)
	vals, skips := values(t, msg+"\n", MaxMessageBytes)
	if took := cputime.Process(t) - cpu; took > time.Second {
		t.Errorf("framing took %v of CPU (%v on the clock)", took, time.Since(start))
	}
	if len(vals) != 1 || len(vals[0]) != len(msg) || skips != nil {
		t.Fatalf("%d values, skips %q", len(vals), skips)
	}
}

// The line limit is on a line's text, its line ending aside: a line of
// limit bytes is read, one of limit+1 is skipped, whatever ends it. Before,
// a line of limit+1 bytes ending in LF or at the end of input was read,
// one ending in CRLF skipped, and below the 64 KiB buffer none was.
func TestReaderLineLimitIsExact(t *testing.T) {
	for _, limit := range []int{100, 100 << 10} {
		for _, eol := range []string{"\n", "\r\n", ""} {
			fits := `{"pad": "` + strings.Repeat("y", limit-11) + `"}`
			over := `{"pad": "` + strings.Repeat("z", limit-10) + `"}`
			for _, line := range []string{fits, over} {
				in := line + eol
				if eol != "" {
					in += `{"ok": 1}` + eol
				}
				vals, skips := values(t, in, limit)
				name := fmt.Sprintf("limit %d, %d bytes, %q", limit, len(line), eol)
				switch {
				case line == fits && (len(vals) == 0 || vals[0] != fits || skips != nil):
					t.Errorf("%s: values %.50q, skips %q; want it read", name, vals, skips)
				case line == over && (len(skips) != 1 || skips[0] != fmt.Sprintf("line 1: line longer than %d bytes", limit)):
					t.Errorf("%s: skips %q; want it skipped", name, skips)
				case eol != "" && vals[len(vals)-1] != `{"ok": 1}`:
					t.Errorf("%s: lost the next line: %.50q", name, vals)
				}
			}
		}
	}
}

// FuzzReader frames any input under a small limit: Next ends, every value
// fits the limit and is not blank (JSON white space only: a line of "\v" is
// a value, as TestReaderBlankLinesAreJSONWhiteSpace says), line numbers
// never go back, and reading the source a byte at a time frames it the
// same. Its seed corpus runs in every go test.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"{\"a\": 1}\r\n\n[1,\n2]\n", "{\n\"a\": [\n" + strings.Repeat("\"xxxxxxxx\",\n", 20) + "1]}\n{\"ok\": 1}\n",
		"[\n" + strings.Repeat("x", 300) + "\n]\n", "{\"a\":\n{\"b\": 1}\n", "{} {\n", "\"\\\"[\"\n[\n\"]\"\n]\n", "[\n\"a\nb\"]\n",
	} {
		f.Add(s, uint8(100))
	}
	f.Fuzz(func(t *testing.T, in string, limit uint8) {
		if limit == 0 {
			return
		}
		read := func(r io.Reader) (out []string) {
			v := newReader(r, int(limit))
			for line := 0; ; {
				b, err := v.Next()
				if v.Line() < line {
					t.Fatalf("line %d after %d", v.Line(), line)
				}
				line = v.Line()
				var s *SkipError
				switch {
				case err == io.EOF:
					return out
				case errors.As(err, &s):
					out = append(out, "skip "+s.Error())
				case err != nil:
					t.Fatal(err)
				case len(b) > int(limit) || space(b, 0) == len(b):
					t.Fatalf("value %q over the limit %d or blank", b, limit)
				default:
					out = append(out, "value "+string(b))
				}
				if len(out) > len(in)+1 {
					t.Fatalf("%d results from %d bytes", len(out), len(in))
				}
			}
		}
		whole := read(strings.NewReader(in))
		if bytewise := read(iotest.OneByteReader(strings.NewReader(in))); fmt.Sprint(bytewise) != fmt.Sprint(whole) {
			t.Fatalf("%q\nwhole    %q\nbytewise %q", in, whole, bytewise)
		}
	})
}

// Only JSON's white space (space, tab, CR, LF) makes a line blank. A line
// of other white space, such as a no-break space, a form feed or U+2028,
// is not JSON: it is handed over, and Serve reports it, rather than being
// dropped without a word.
func TestReaderBlankLinesAreJSONWhiteSpace(t *testing.T) {
	vals, skips := values(t, " \t\r\n\u00a0\n\f\n\v\n\u2028\n\u0085\n{\"ok\": 1}\n", 100)
	want := []string{"\u00a0", "\f", "\v", "\u2028", "\u0085", `{"ok": 1}`}
	if strings.Join(vals, "|") != strings.Join(want, "|") || skips != nil {
		t.Fatalf("vals %q skips %q, want vals %q", vals, skips, want)
	}
	out, log := serve(t, "\u00a0\n")
	if out != "" || !strings.Contains(log, "skipped line 1: not JSON") {
		t.Fatalf("stdout %q, stderr %q", out, log)
	}
}

// A byte order mark opening the input is ignored: the first message is
// answered. One later in the input is not white space: that line is
// skipped, and the reader goes on.
func TestReaderIgnoresLeadingBOM(t *testing.T) {
	bom := "\xef\xbb\xbf"
	out, log := serve(t, bom+`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 1}}`+"\n"+
		bom+`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 2}}`+"\n"+
		`{"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 3}}`+"\n")
	if !strings.Contains(out, `"in_reply_to": 1,`) || strings.Contains(out, `"in_reply_to": 2,`) || !strings.Contains(out, `"in_reply_to": 3,`) {
		t.Errorf("replies:\n%s", out)
	}
	if !strings.Contains(log, "line 2") {
		t.Errorf("the second line's mark was not reported: %q", log)
	}
	// A mark alone on the first line is a blank line; a pretty-printed
	// value may start after it.
	out, _ = serve(t, bom+"\n{\n"+`"src": "c", "dest": "n", "body": {"type": "check_cluster_state", "msg_id": 4}`+"\n}\n")
	if !strings.Contains(out, `"in_reply_to": 4,`) {
		t.Errorf("after a mark alone on line 1: %q", out)
	}
}

// A value spread over lines is as long as its lines joined by one byte
// each, as MaxMessageBytes says, whether they end in LF or CRLF: the
// package doc said "line endings not counted", which held for one line
// only.
func TestReaderMultiLineLimitCountsOneByteABreak(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		for _, over := range []bool{false, true} {
			lines := []string{"[", `"` + strings.Repeat("y", 90) + `",`, "1", "]"} // 96 bytes of text, 3 breaks: 99
			if over {
				lines[1] = `"` + strings.Repeat("y", 91) + `",`
			}
			vals, skips := values(t, strings.Join(lines, eol)+eol+`{"ok": 1}`+eol, 99)
			if over != (len(skips) == 1) || vals[len(vals)-1] != `{"ok": 1}` {
				t.Errorf("eol %q, over %v: values %.40q, skips %q", eol, over, vals, skips)
			}
		}
	}
}

package node

import (
	"encoding/json"
	"testing"
)

func TestEncoderWritesTheExerciseSeparatorsInOrder(t *testing.T) {
	var e encoder
	e.top()
	e.str("type", "cluster_state_ok")
	e.int("in_reply_to", 2)
	e.obj("workers")
	e.obj("w1")
	e.int("queue_size", 0)
	e.str("state", "idle")
	e.end()
	e.obj("w2")
	e.end()
	e.end()
	e.bool("all_idle", true)
	e.float("ratio", 1.23456)
	e.raw("payload", `{"a":[1,2]}`)
	e.strs("list", []string{"a", "b"})
	e.strs("none", nil)
	e.end()
	want := `{"type": "cluster_state_ok", "in_reply_to": 2, "workers": {"w1": {"queue_size": 0, "state": "idle"}, "w2": {}}, "all_idle": true, "ratio": 1.235, "payload": {"a":[1,2]}, "list": ["a", "b"], "none": []}`
	if got := string(e.buf); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(e.buf) {
		t.Fatal("output is not valid JSON")
	}
}

func TestEncoderFloats(t *testing.T) {
	for v, want := range map[float64]string{20: "20", 0.5: "0.5", 1e-4: "0", 12345678.9: "12345678.9"} {
		var e encoder
		e.float("x", v)
		if got := string(e.buf); got != `"x": `+want {
			t.Errorf("float(%v) = %s, want %s", v, got, want)
		}
	}
	var e encoder
	e.float("x", 0/zero())
	if string(e.buf) != `"x": 0` {
		t.Errorf("NaN encoded as %s", e.buf)
	}
}

func zero() float64 { return 0 }

func TestAppendStringEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"w1":        `"w1"`,
		`a"b\c`:     `"a\"b\\c"`,
		"tab\there": `"tab\there"`,
		"é":         `"\u00e9"`,
		"<x>":       `"<x>"`,
		"":          `""`,
	} {
		got := string(appendString(nil, in))
		if got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != in {
			t.Errorf("%s does not decode back to %q", got, in)
		}
	}
}

func TestEncoderListsOfObjects(t *testing.T) {
	var e encoder
	e.top()
	e.arr("results")
	for i := range 2 {
		e.elem()
		e.int("i", int64(i))
		e.end()
	}
	e.endArr()
	e.arr("empty")
	e.endArr()
	e.end()
	if got, want := string(e.buf), `{"results": [{"i": 0}, {"i": 1}], "empty": []}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// Strings are escaped as the work-stealing cluster exercise prints them
// (Python's json.dumps, whose separators the replies already use): every
// character outside printable ASCII as \u and four lowercase hex digits, a
// surrogate pair beyond U+FFFF, the short escapes \" \\ \b \f \n \r \t, and
// nothing else: <, > and & stay as they are.
func TestAppendStringEscapesAsTheExercisePrints(t *testing.T) {
	for in, want := range map[string]string{
		"w1":                  `"w1"`,
		"<a & b>/":            `"<a & b>/"`,
		"\"\\\b\f\n\r\t":      `"\"\\\b\f\n\r\t"`,
		"\x00\x01\x1f \x7f":   `"\u0000\u0001\u001f \u007f"`,
		"é\u00ff\u2028\uffff": `"\u00e9\u00ff\u2028\uffff"`,
		"工人":                  `"\u5de5\u4eba"`,
		"😀":                   `"\ud83d\ude00"`,
		"a\xffb":              `"a\ufffdb"`, // not UTF-8: one U+FFFD per bad byte
	} {
		got := string(appendString(nil, in))
		if got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
	// In a reply: keys, src and dest included.
	out, _ := serve(t, `{"src": "c<é>", "dest": "n&1", "body": {"type": "push_job", "msg_id": 1, "worker": "w3", "job_id": "j\u00e9<\ud83d\ude00>"}}`+"\n")
	want := `{"src": "n&1", "dest": "c<\u00e9>", "body": {"type": "push_job_ok", "in_reply_to": 1, "worker": "w3", "job_id": "j\u00e9<\ud83d\ude00>", "queue_size": 1}}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}

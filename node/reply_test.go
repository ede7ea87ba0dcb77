package node

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A reply written by AppendReply is byte for byte the node's own reply
// with the same content, escaping, float rounding and payload included.
func TestAppendReplyIsTheNodesFormat(t *testing.T) {
	n := New()
	for _, msg := range []string{
		`{"src": "c<1>", "dest": "n&1", "body": {"type": "init", "msg_id": 2, "workers": ["w1"]}}`,
		`{"src": "c<1>", "dest": "n&1", "body": {"type": "push_job", "msg_id": 3, "worker": "w1", "job_id": "a", "payload": { "s": "<&>", "n": [1, 2] }, "cost_ms": 5.5}}`,
	} {
		if _, err := n.Handle([]byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	want, err := n.Handle([]byte(`{"src": "c<1>", "dest": "n&1", "body": {"type": "pop_job", "msg_id": 5, "worker": "w1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := AppendReply([]byte("kept "), "n&1", "c<1>",
		Field{"type", "pop_job_ok"}, Field{"in_reply_to", int64(5)}, Field{"worker", "w1"}, Field{"job_id", "a"},
		Field{"source", "own"}, Field{"cost_ms", 5.5},
		Field{"payload", json.RawMessage(`{"s":"<&>", "n": [1,2]}`)}, Field{"queue_size", 0})
	if err != nil || string(got) != "kept "+string(want) {
		t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
	}
}

func TestAppendReplyValues(t *testing.T) {
	got, err := AppendReply(nil, "n", "c", Field{"ok", true}, Field{"nan", math.NaN()}, Field{"list", []string{"a", "<b>"}},
		Field{"none", []string{}}, Field{"obj", []Field{}}, Field{"tab\t", "x\ny"})
	want := `{"src": "n", "dest": "c", "body": {"ok": true, "nan": 0, "list": ["a", "<b>"], "none": [], "obj": {}, "tab\t": "x\ny"}}` + "\n"
	if err != nil || string(got) != want {
		t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
	}
	if !json.Valid(got) {
		t.Fatal("not valid JSON")
	}
}

// The empty string is a key like any other: a nested object under it
// lost its key and the comma before it, which made the reply invalid JSON
// (`{"type": "x"{"a": 1}}`); AppendReply writes what it is given, so a
// handler's map of names to objects can hold "".
func TestAppendReplyEmptyKeyOfNestedObject(t *testing.T) {
	got, err := AppendReply(nil, "n", "c", Field{"type", "x"}, Field{"", []Field{{"a", 1}}}, Field{"", "s"})
	want := `{"src": "n", "dest": "c", "body": {"type": "x", "": {"a": 1}, "": "s"}}` + "\n"
	if err != nil || string(got) != want {
		t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
	}
}

// Bad values are refused with an error naming the field, and the buffer
// is returned as it was.
func TestAppendReplyRefusesBadValues(t *testing.T) {
	for _, tc := range []struct {
		f    Field
		want string
	}{
		{Field{"n", uint8(1)}, `field "n" has a value of type uint8`},
		{Field{"p", json.RawMessage(`{"a":`)}, `field "p" is not valid JSON`},
		{Field{"p", json.RawMessage(nil)}, `field "p" is not valid JSON`},
		{Field{"o", []Field{{"deep", struct{}{}}}}, `field "deep" has a value of type struct {}`},
		{Field{"big", strings.Repeat("x", MaxReplyBytes)}, "over the limit of 16777216 (MaxReplyBytes)"},
	} {
		buf := append(make([]byte, 0, 64), "kept"...)
		got, err := AppendReply(buf, "n", "c", Field{"type", "x"}, tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.want) || string(got) != "kept" {
			t.Errorf("%s: got %q, %v; want \"kept\" and an error containing %q", tc.f.Key, got, err, tc.want)
		}
	}
}

// The exported Reader reports skips as *SkipError with their line, and
// Line tells where each value ended.
func TestReaderLineAndSkipError(t *testing.T) {
	r := NewReader(strings.NewReader("\n{\"a\":\n 1}\nnope {\n{\"b\": 2}\n"))
	if v, err := r.Next(); string(v) != "{\"a\":\n 1}" || err != nil || r.Line() != 3 {
		t.Fatalf("first: %q %v at line %d", v, err, r.Line())
	}
	_, err := r.Next()
	if s, ok := err.(*SkipError); !ok || s.Line != 4 || s.Reason != "invalid JSON" || s.Error() != "line 4: invalid JSON" {
		t.Fatalf("second: %v", err)
	}
	if v, err := r.Next(); string(v) != `{"b": 2}` || err != nil || r.Line() != 5 {
		t.Fatalf("third: %q %v at line %d", v, err, r.Line())
	}
}

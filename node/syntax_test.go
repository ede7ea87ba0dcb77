package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// decoderWantsMore is the Reader's former check of a value spread over
// lines, run on all of it after every line: whether encoding/json's Decoder
// finds b the beginning of a value that more input could complete. syntax
// must agree with it, where the text nests no deeper than the Decoder
// takes (syntax follows deeper text, and says it is too deep).
func decoderWantsMore(b []byte) bool {
	var raw json.RawMessage
	err := json.NewDecoder(bytes.NewReader(b)).Decode(&raw)
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// check feeds in to a syntax in two pieces and compares it with the
// Decoder. Only text that opens an object or array is compared: the
// Reader feeds no other, and a number at the top can always go on.
func checkSyntax(t *testing.T, in string, split int) {
	t.Helper()
	trimmed := strings.TrimLeft(in, " \t\r\n")
	if trimmed == "" || trimmed[0] != '{' && trimmed[0] != '[' {
		return
	}
	split = min(max(split, 0), len(in))
	var s syntax
	s.feed([]byte(in[:split]))
	s.feed([]byte(in[split:]))
	if want := decoderWantsMore([]byte(in)); (s.ok() && !s.tooDeep()) != want {
		t.Fatalf("%q (split at %d): ok %v, too deep %v, the Decoder %v", in, split, s.ok(), s.tooDeep(), want)
	}
}

func TestSyntaxMatchesDecoder(t *testing.T) {
	for _, in := range []string{
		`{`, `{"a"`, `{"a":`, `{"a": 1`, `{"a": 1,`, `{"a": 1}`, `{"a": 1} `, `{"a": 1} x`, `{} {`, `[1, 2`, `[1 2`, `[1,]`, `[,`,
		`[-`, `[-0`, `[-01`, `[0.`, `[0.5e`, `[0.5e+`, `[0.5e+1`, `[1e5.`, `[1.5.`, `[01`, `[.5`, `[+1`, `[1E-`, `[-a`,
		`[tr`, `[true`, `[truex`, `[nul`, `[null]`, `[fals`, `[falsy`, `["\u12`, `["\u12g`, `["\x"]`, `["\/`, "[\"a\tb\"",
		"[\"\xff\"", `[{"a":{"b":[{}]}}`, `[{"a":{"b":[{}]]}`, `[}`, `{]`, `{"a" "b"}`, `{1:2}`, `{"a":1,}`, "[\n1\n,\n2", "[1\n2]",
		strings.Repeat("[", maxDepth), strings.Repeat("[", maxDepth+1), strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		strings.Repeat(`{"a":`, maxDepth), strings.Repeat(`{"a":`, maxDepth+1),
	} {
		for split := 0; split <= len(in) && split < 40; split++ {
			checkSyntax(t, in, split)
		}
		checkSyntax(t, in, len(in)/2)
	}
}

// FuzzSyntax compares syntax with the Decoder on any text, fed in two
// pieces. Its seed corpus runs in every go test.
func FuzzSyntax(f *testing.F) {
	for _, s := range []string{`{"a": [1, -2.5e3, "x\"y\u00e9", true, null, {}]`, `[1 ,2]`, `{"a":}`, "[\"\\ud800\", 0.0E+1, \n", `[[[[`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, split int) { checkSyntax(t, in, split) })
}

// Text nested past maxDepth is still a JSON prefix, checked as deep as
// maxStack and followed unchecked beyond it, so that the Reader finds where
// such a value ends.
func TestSyntaxFollowsDeepNesting(t *testing.T) {
	var s syntax
	s.feed([]byte(strings.Repeat("[", maxDepth+1)))
	if !s.ok() || !s.tooDeep() {
		t.Fatalf("%d levels: ok %v, too deep %v", maxDepth+1, s.ok(), s.tooDeep())
	}
	s.feed([]byte(strings.Repeat("]", maxDepth) + "}"))
	if s.ok() {
		t.Fatal("a '}' closing a '[' past maxDepth is taken")
	}
	s.reset()
	s.feed([]byte(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)))
	if s.ok() || s.state != synDone {
		t.Fatalf("closed past maxDepth: state %d", s.state)
	}
	s.reset()
	s.feed([]byte(strings.Repeat("[", maxStack+1) + "}x"))
	if !s.ok() || len(s.stack) != maxStack {
		t.Fatalf("past maxStack: ok %v, stack %d", s.ok(), len(s.stack))
	}
	if s.reset(); cap(s.stack) != 0 {
		t.Fatalf("reset keeps a stack of %d", cap(s.stack))
	}
}

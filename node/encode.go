package node

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// encoder appends JSON with keys in the order they are written and the
// separators of the work-stealing cluster exercise's samples, `{"k": v, "k2": v2}`, which
// encoding/json's Marshal (no spaces, map keys sorted) cannot produce.
//
// Usage: obj opens an object (after key for a nested one), each value
// method writes `"key": value`, end closes. The caller keeps the nesting
// balanced; the tests check the output parses.
type encoder struct {
	buf   []byte
	comma bool // a value was written at this level: the next key needs ", "
}

// open starts a reply: `{"src": src, "dest": dest, "body": {`, the
// envelope in the order every reply has it.
func (e *encoder) open(src, dest string) {
	e.obj("")
	e.str("src", src)
	e.str("dest", dest)
	e.obj("body")
}

// close ends the reply that open started, with its newline.
func (e *encoder) close() {
	e.end()
	e.end()
	e.buf = append(e.buf, '\n')
}

// key writes the separator if needed and `"k": `.
func (e *encoder) key(k string) {
	if e.comma {
		e.buf = append(e.buf, ", "...)
	}
	e.buf = appendString(e.buf, k)
	e.buf = append(e.buf, ": "...)
	e.comma = true
}

// obj opens an object, as a value of key k or, with k == "", at top level.
func (e *encoder) obj(k string) {
	if k != "" {
		e.key(k)
	}
	e.buf = append(e.buf, '{')
	e.comma = false
}

// end closes the innermost object.
func (e *encoder) end() {
	e.buf = append(e.buf, '}')
	e.comma = true
}

func (e *encoder) str(k, v string) {
	e.key(k)
	e.buf = appendString(e.buf, v)
}

func (e *encoder) int(k string, v int64) {
	e.key(k)
	e.buf = strconv.AppendInt(e.buf, v, 10)
}

func (e *encoder) bool(k string, v bool) {
	e.key(k)
	e.buf = strconv.AppendBool(e.buf, v)
}

// float writes v rounded to 3 decimals, without exponent or trailing zeros
// (20 rather than 20.000); non-finite values, invalid in JSON, become 0.
func (e *encoder) float(k string, v float64) {
	e.key(k)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	e.buf = strconv.AppendFloat(e.buf, math.Round(v*1000)/1000, 'f', -1, 64)
}

// raw writes v, which must be valid compact JSON, as is.
func (e *encoder) raw(k string, v string) {
	e.key(k)
	e.buf = append(e.buf, v...)
}

// strs writes a list of strings.
func (e *encoder) strs(k string, vs []string) {
	e.key(k)
	e.buf = append(e.buf, '[')
	for i, v := range vs {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.buf = appendString(e.buf, v)
	}
	e.buf = append(e.buf, ']')
}

// appendString quotes s. Plain printable ASCII, the common case of ids and
// names, is copied directly; anything else goes through encoding/json so
// escaping is always right.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// arr opens a list as the value of key k; elem opens an object inside it,
// closed by end; endArr closes the list.
func (e *encoder) arr(k string) {
	e.key(k)
	e.buf = append(e.buf, '[')
	e.comma = false
}

func (e *encoder) elem() {
	if e.comma {
		e.buf = append(e.buf, ", "...)
	}
	e.buf = append(e.buf, '{')
	e.comma = false
}

func (e *encoder) endArr() {
	e.buf = append(e.buf, ']')
	e.comma = true
}

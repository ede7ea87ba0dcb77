package node

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// encoder appends JSON with keys in the order they are written and the
// separators of the work-stealing cluster exercise's samples, `{"k": v, "k2": v2}`, which
// encoding/json's Marshal (no spaces, map keys sorted) cannot produce.
//
// Usage: top opens the reply's object, obj one as a key's value, each value
// method writes `"key": value`, end closes. The caller keeps the nesting
// balanced; the tests check the output parses.
type encoder struct {
	buf   []byte
	comma bool // a value was written at this level: the next key needs ", "
}

// open starts a reply: `{"src": src, "dest": dest, "body": {`, the
// envelope in the order every reply has it.
func (e *encoder) open(src, dest string) {
	e.top()
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

// top opens an object that is no key's value: the reply itself.
func (e *encoder) top() {
	e.buf = append(e.buf, '{')
	e.comma = false
}

// obj opens an object as the value of key k. An empty k is a key too
// (AppendReply writes the keys it is given), which is why the top level
// has a method of its own.
func (e *encoder) obj(k string) {
	e.key(k)
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

// appendString quotes s as the work-stealing cluster exercise prints
// strings (Python's json.dumps, whose separators the replies use):
// printable ASCII as it is, <, > and & included; " and \ as \" and \\;
// the controls with a short escape as \b, \f, \n, \r and \t; and every
// other character as \u and four lowercase hex digits, a surrogate pair
// beyond U+FFFF, so that a reply is ASCII. A byte that is not UTF-8 is
// written as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is plain, not yet copied
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if c < utf8.RuneSelf {
			b = appendEscape(b, rune(c))
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				b = appendEscape(appendEscape(b, r1), r2)
			} else {
				b = appendEscape(b, r) // U+FFFF and below, U+FFFD for a bad byte
			}
			i += size
		}
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape writes r, below U+10000, escaped: its short escape if it has
// one, else \u and four lowercase hex digits.
func appendEscape(b []byte, r rune) []byte {
	switch r {
	case '"', '\\':
		return append(b, '\\', byte(r))
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
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

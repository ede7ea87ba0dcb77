package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/worksteal/steal/node"
)

// field is one member of a reply object; obj keeps them in order and
// writes them with the node's separators, {"k": v, "k2": v2}, so that a
// reply reads like steal node's.
type field struct {
	k string
	v any
}

type obj []field

func (o obj) append(b []byte) []byte {
	b = append(b, '{')
	for i, f := range o {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendJSON(b, f.k)
		b = append(b, ": "...)
		if inner, ok := f.v.(obj); ok {
			b = inner.append(b)
		} else {
			b = appendJSON(b, f.v)
		}
	}
	return append(b, '}')
}

func appendJSON(b []byte, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return strconv.AppendQuote(b, err.Error()) // not reached: replies hold strings, numbers, bools
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// lineReader splits input into JSON values as steal node does: one per
// line, or one spread over lines while what has been read is a valid
// prefix; blank lines are skipped, and input longer than
// node.MaxMessageBytes is discarded.
type lineReader struct {
	r       *bufio.Reader
	line    int
	pending []byte
}

func newLineReader(in io.Reader) *lineReader { return &lineReader{r: bufio.NewReaderSize(in, 64<<10)} }

// errSkip is input that is not a message: reported, then skipped.
type errSkip struct{ text string }

func (e *errSkip) Error() string { return e.text }

// next returns the next value, an *errSkip to report, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	for {
		line, err := l.readLine()
		if err == io.EOF && len(l.pending) > 0 {
			l.pending = nil
			return nil, &errSkip{fmt.Sprintf("line %d: input ended inside a JSON value", l.line)}
		}
		if err != nil {
			return nil, err
		}
		if len(l.pending) == 0 && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l.pending = append(l.pending, line...)
		if len(l.pending) > node.MaxMessageBytes {
			l.pending = nil
			return nil, &errSkip{fmt.Sprintf("line %d: message longer than %d bytes", l.line, node.MaxMessageBytes)}
		}
		var v json.RawMessage
		err = json.Unmarshal(l.pending, &v)
		var syntax *json.SyntaxError
		switch {
		case err == nil:
			msg := l.pending
			l.pending = nil
			return msg, nil
		case errors.As(err, &syntax) && syntax.Offset >= int64(len(l.pending)):
			l.pending = append(l.pending, '\n') // a valid prefix: read on
		default:
			l.pending = nil
			return nil, &errSkip{fmt.Sprintf("line %d: not JSON: %v", l.line, err)}
		}
	}
}

// readLine returns the next line without its newline; a line longer than
// the limit is returned cut short (next then reports it).
func (l *lineReader) readLine() ([]byte, error) {
	var out []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(out) <= node.MaxMessageBytes {
			out = append(out, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(out) > 0 {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		l.line++
		return bytes.TrimSuffix(out, []byte("\n")), nil
	}
}

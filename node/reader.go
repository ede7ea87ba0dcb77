package node

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxMessageBytes is the longest message the node accepts: a line, or a
// JSON value spread over several lines, longer than this is discarded in
// chunks as it is read and reported, never held in memory whole.
const MaxMessageBytes = 1 << 20

// SkipError is input that is not a message: a line, or a JSON value spread
// over lines, that is not valid JSON, ends inside a value, or is longer
// than MaxMessageBytes. Serve reports it on its log and reads on; nothing
// is replied to it.
type SkipError struct {
	Line   int    // the line where the skipped input ends, counting from 1
	Reason string // what is wrong with it, e.g. "invalid JSON"
}

// Error returns "line N: reason", as Serve logs it.
func (s *SkipError) Error() string { return fmt.Sprintf("line %d: %s", s.Line, s.Reason) }

// A Reader splits input into the messages of the protocol exactly as Serve
// does (see Input framing in the package doc): one JSON value per line, or
// one spread over lines while what has been read stays a valid JSON
// prefix, blank lines skipped. It is for programs that serve the protocol
// with their own handler, so that their framing and skip reports are the
// node's. A Reader is not safe for concurrent use.
//
// Next may block reading its source. Serve therefore flushes its buffered
// replies before every read of the source (not only before each Next, as
// the Reader reads ahead); a program that buffers its replies must do the
// same, or write each reply as soon as it is ready, or a peer waiting for a
// reply before it sends more waits for ever.
//
// The normal case, one value per line, is checked with a cheap bracket
// scan and handed over without copying. A value spread over lines is
// checked as its lines arrive, in time linear in its length.
type Reader struct {
	r       *bufio.Reader
	limit   int
	line    int
	long    []byte   // assembles a line longer than r's buffer
	pending []byte   // the lines so far of a value spread over lines
	scan    brackets // the state of the scan over pending
	syn     syntax   // the syntax check over pending
	stash   []byte   // a value found while reporting a skip, due next
	stashed bool
}

// NewReader returns a Reader of in, which it reads through a 64 KiB
// buffer: it may read past the value that Next returns.
func NewReader(in io.Reader) *Reader { return newReader(in, MaxMessageBytes) }

func newReader(r io.Reader, limit int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// Line returns the number, counting from 1, of the last line read: after
// Next returns a value, the line on which it ends.
func (v *Reader) Line() int { return v.line }

// Next returns the next message, a JSON value valid until the next call.
// Input that is not a message gives a *SkipError and is consumed: calling
// Next again reads on after it. A line over MaxMessageBytes is read
// through and dropped in chunks, never held whole. At the end of input
// Next returns io.EOF (a *SkipError first if the input ended inside a
// value); an error reading in is returned as it is.
//
// A value whose brackets balance on its line is returned without checking
// the rest of its syntax, which Node.Handle does: Next does not promise
// valid JSON, only that it framed the input as the node does.
func (v *Reader) Next() ([]byte, error) {
	if v.stashed {
		v.stashed = false
		return v.stash, nil
	}
	for {
		line, err := v.readLine()
		if err == io.EOF {
			if v.pending != nil {
				v.pending = nil
				return nil, &SkipError{v.line, "input ended inside a JSON value"}
			}
			return nil, io.EOF
		}
		if err != nil {
			v.pending = nil
			return nil, err
		}
		if value, err := v.add(line); value != nil || err != nil {
			return value, err
		}
	}
}

// add takes one line and returns a complete value, a *SkipError, or
// nothing yet.
func (v *Reader) add(line []byte) ([]byte, error) {
	if v.pending == nil {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil, nil
		}
		v.scan = brackets{}
		if v.scan.feed(line); v.scan.closed() {
			return line, nil // the fast path: one value on one line
		}
		return nil, v.start(line)
	}
	if len(v.pending)+1+len(line) > v.limit {
		v.pending = nil
		return nil, &SkipError{v.line, fmt.Sprintf("JSON value longer than %d bytes", v.limit)}
	}
	v.pending = append(append(v.pending, '\n'), line...)
	v.syn.feed(newline)
	v.syn.feed(line)
	if v.scan.feed(line); v.scan.closed() {
		value := v.pending
		v.pending = nil
		return value, nil
	}
	if !v.syn.ok() {
		v.pending = nil
		// The value so far was a valid prefix, so this line broke it:
		// perhaps the value was cut short and this line starts a new one.
		cut := &SkipError{v.line - 1, "JSON value cut short by the next line"}
		value, err := v.add(line)
		if err != nil {
			return nil, &SkipError{v.line, "invalid JSON"}
		}
		v.stash = append(v.stash[:0], value...) // nil when line began a new value
		v.stashed = value != nil
		return nil, cut
	}
	return nil, nil
}

// start begins a multi-line value with line, if it is a valid prefix.
func (v *Reader) start(line []byte) error {
	v.scan = brackets{}
	v.syn.reset()
	v.syn.feed(line)
	if v.scan.feed(line); v.scan.closed() || !v.syn.ok() {
		return &SkipError{v.line, "invalid JSON"}
	}
	v.pending = append([]byte(nil), line...)
	return nil
}

// readLine returns the next line without its line ending. A line over the
// limit is read through in bufio-sized chunks and dropped, so it never
// occupies more than the limit.
func (v *Reader) readLine() ([]byte, error) {
	v.line++
	chunk, err := v.r.ReadSlice('\n')
	if err == nil || err == io.EOF && len(chunk) > 0 {
		return trimEOL(chunk), nil
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	v.long = append(v.long[:0], chunk...)
	for err == bufio.ErrBufferFull {
		chunk, err = v.r.ReadSlice('\n')
		if len(v.long)+len(chunk) > v.limit+2 { // +2: the line ending
			return nil, v.discard(err)
		}
		v.long = append(v.long, chunk...)
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	return trimEOL(v.long), nil
}

// discard drops the rest of an over-long line.
func (v *Reader) discard(err error) error {
	v.long = v.long[:0]
	for err == bufio.ErrBufferFull {
		_, err = v.r.ReadSlice('\n')
	}
	if err != nil && err != io.EOF {
		return err
	}
	return &SkipError{v.line, fmt.Sprintf("line longer than %d bytes", v.limit)}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

var newline = []byte{'\n'}

// brackets tracks the nesting depth of JSON text, skipping strings.
type brackets struct {
	depth            int
	inString, escape bool
}

func (s *brackets) feed(b []byte) {
	for _, c := range b {
		switch {
		case s.escape:
			s.escape = false
		case s.inString:
			s.escape = c == '\\'
			s.inString = c != '"'
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			s.depth--
		}
	}
}

// closed reports whether the text so far cannot continue on the next line:
// every bracket is closed, or a string is open (JSON strings cannot hold a
// raw newline, so the text is already invalid and the decoder will say so).
func (s *brackets) closed() bool { return s.depth <= 0 || s.inString }

package node

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxMessageBytes is the longest message the node accepts: a line, or a
// JSON value spread over several lines, longer than this is read through
// to its end and skipped whole, with one report, its text dropped in
// chunks as it is read, never held in memory whole. A line's length is
// that of its text, without its line ending; a value spread over lines is
// as long as its lines joined by '\n', one byte for each line break within
// it, however it was written.
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
// prefix, blank lines (of JSON white space only) skipped. It is for
// programs that serve the protocol with their own handler, so that their
// framing and skip reports are the node's. A Reader is not safe for
// concurrent use.
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
	r     *bufio.Reader
	limit int
	line  int
	long  []byte // assembles a line longer than r's buffer

	// The value spread over lines being read, while open is true.
	open    bool
	over    bool     // it is longer than the limit: its text is dropped
	pending []byte   // its lines so far, joined by '\n', unless over
	size    int      // its length so far
	scan    brackets // the bracket scan over it
	syn     syntax   // the syntax check over it

	// The scans of a line over the limit on its own, which is read in
	// chunks and never held whole.
	lineScan brackets
	lineSyn  syntax

	stash   []byte // a value found while reporting a skip, due next
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
// Next again reads on after it. A line, or a value spread over lines,
// longer than MaxMessageBytes is read through to its end in chunks,
// never held whole, and skipped with one *SkipError: nothing inside it is
// taken for a message. At the end of input Next returns io.EOF (a
// *SkipError first if the input ended inside a value); an error reading
// in is returned as it is.
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
		switch {
		case err == io.EOF:
			if v.open {
				reason := "input ended inside a JSON value"
				if v.over {
					reason += fmt.Sprintf(" longer than %d bytes", v.limit)
				}
				v.close()
				return nil, &SkipError{v.line, reason}
			}
			return nil, io.EOF
		case err == errLongLine:
			if err := v.addLong(); err != nil {
				return nil, err
			}
			continue
		case err != nil:
			v.close()
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
	if !v.open {
		if space(line, 0) == len(line) {
			return nil, nil // blank: JSON white space only
		}
		v.scan = brackets{}
		if v.scan.feed(line); v.scan.closed() {
			return line, nil // the fast path: one value on one line
		}
		v.syn.reset()
		if v.syn.feed(line); !v.syn.ok() {
			return nil, &SkipError{v.line, "invalid JSON"}
		}
		v.open, v.size = true, len(line)
		v.pending = append([]byte(nil), line...)
		return nil, nil
	}
	v.size += 1 + len(line)
	if !v.over && v.size > v.limit {
		v.over, v.pending = true, nil
	}
	if !v.over {
		v.pending = append(append(v.pending, '\n'), line...)
	}
	v.scan.feed(line)
	v.syn.feed(newline)
	v.syn.feed(line)
	if v.scan.closed() {
		if v.over {
			v.close()
			return nil, &SkipError{v.line, fmt.Sprintf("JSON value longer than %d bytes", v.limit)}
		}
		value := v.pending
		v.close()
		return value, nil
	}
	if v.syn.ok() {
		return nil, nil
	}
	// The value so far was a valid prefix, so this line broke it:
	// perhaps the value was cut short and this line starts a new one.
	over := v.over
	v.close()
	cut := &SkipError{v.line - 1, "JSON value cut short by the next line"}
	if over {
		cut.Reason = fmt.Sprintf("JSON value longer than %d bytes, cut short by the next line", v.limit)
	}
	value, err := v.add(line)
	if err != nil {
		if over {
			return nil, &SkipError{v.line, fmt.Sprintf("JSON value longer than %d bytes", v.limit)}
		}
		return nil, &SkipError{v.line, "invalid JSON"}
	}
	v.stash = append(v.stash[:0], value...) // nil when line began a new value
	v.stashed = value != nil
	return nil, cut
}

// addLong takes a line over the limit, which readLine has fed to the
// scans, and returns a *SkipError, or nil when a value goes on after it.
func (v *Reader) addLong() error {
	tooLong := fmt.Sprintf("JSON value longer than %d bytes", v.limit)
	if v.open {
		if v.scan.closed() {
			v.close()
			return &SkipError{v.line, tooLong}
		}
		if v.syn.ok() {
			v.over, v.pending = true, nil
			return nil
		}
		// This line broke the value, which is cut short before it; the
		// line is taken on its own.
		cut := &SkipError{v.line - 1, "JSON value cut short by the next line"}
		if v.over {
			cut.Reason = tooLong + ", cut short by the next line"
		}
		v.close()
		if v.opens() {
			return cut
		}
		return &SkipError{v.line, fmt.Sprintf("line longer than %d bytes", v.limit)}
	}
	if v.opens() {
		return nil
	}
	return &SkipError{v.line, fmt.Sprintf("line longer than %d bytes", v.limit)}
}

// opens reports whether the line over the limit just read, on its own,
// begins a value spread over lines, and if so opens that value, over the
// limit already.
func (v *Reader) opens() bool {
	if v.lineScan.closed() || !v.lineSyn.ok() {
		return false
	}
	v.open, v.over, v.pending = true, true, nil
	v.scan = v.lineScan
	v.syn, v.lineSyn = v.lineSyn, v.syn // swapped: each keeps a stack of its own
	return true
}

// close ends the value spread over lines.
func (v *Reader) close() {
	v.open, v.over, v.pending, v.size = false, false, nil, 0
}

var newline = []byte{'\n'}

// errLongLine tells Next that readLine read a line over the limit through.
var errLongLine = errors.New("node: line longer than the limit")

// utf8BOM is the byte order mark in UTF-8, U+FEFF.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readLine returns the next line without its line ending. A line longer
// than the limit is not returned: it is read through in bufio-sized
// chunks, each fed to the scans of the value it may continue and of the
// line on its own, then dropped, so that it never occupies more than the
// limit; readLine then returns errLongLine.
func (v *Reader) readLine() ([]byte, error) {
	chunk, err := v.r.ReadSlice('\n')
	if len(chunk) == 0 {
		return nil, err // io.EOF, or a read error, with nothing read
	}
	v.line++
	if v.line == 1 {
		// A byte order mark opening the input is not part of its first
		// message: RFC 8259 lets a parser ignore it, and some writers
		// (.NET's UTF-8 StreamWriter, Windows PowerShell) put one there.
		chunk = bytes.TrimPrefix(chunk, utf8BOM)
	}
	if err == nil || err == io.EOF {
		line := trimEOL(chunk)
		if len(line) <= v.limit {
			return line, nil
		}
		v.feedLong(line, true)
		return nil, errLongLine
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	v.long = append(v.long[:0], chunk...)
	for {
		chunk, err = v.r.ReadSlice('\n')
		switch {
		case err == nil || err == io.EOF: // the line ends in chunk
			v.long = append(v.long, chunk...)
			line := trimEOL(v.long)
			if len(line) <= v.limit {
				return line, nil
			}
			v.feedLong(line, true)
			v.long = v.long[:0]
			return nil, errLongLine
		case err != bufio.ErrBufferFull:
			return nil, err
		case len(v.long)+len(chunk) > v.limit+1:
			// Over the limit whatever ends the line (at most "\r\n", of
			// which the '\r' may be here): fed and dropped from here on.
			v.feedLong(v.long, true)
			v.long = v.long[:0]
			for err == bufio.ErrBufferFull {
				v.feedLong(chunk, false)
				chunk, err = v.r.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			v.feedLong(trimEOL(chunk), false)
			return nil, errLongLine
		}
		v.long = append(v.long, chunk...)
	}
}

// feedLong feeds part of a line over the limit to the scans: those of
// the open value, if any, and those of the line on its own, which first
// restart. A '\r' of the line's end, fed when the '\n' came in the next
// chunk, is white space to them, or ends a string that the line had
// left open anyway.
func (v *Reader) feedLong(b []byte, first bool) {
	if first {
		v.lineScan = brackets{}
		v.lineSyn.reset()
		if v.open {
			v.syn.feed(newline)
		}
	}
	v.lineScan.feed(b)
	v.lineSyn.feed(b)
	if v.open {
		v.scan.feed(b)
		v.syn.feed(b)
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

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

package node

// maxDepth is encoding/json's limit on nesting: deeper text is not JSON
// to it.
const maxDepth = 10000

// maxStack bounds the nesting that syntax follows: a value within
// MaxMessageBytes cannot nest deeper. Past it, in a value over the limit
// that the Reader only follows to its end, syntax stops checking.
const maxStack = MaxMessageBytes

// syntax checks JSON text as it arrives, in pieces of any size, in time
// linear in its length and memory linear in its nesting (at most
// maxStack): ok reports whether all it has been fed is the beginning of
// one JSON value that more text could complete. That is exactly when
// encoding/json's Decoder, given that text, would ask for more (it fails
// with io.ErrUnexpectedEOF), except that nesting deeper than maxDepth,
// which the Decoder refuses, is followed like any other (tooDeep reports
// it): RFC 8259 sets no limit, so such text is still the prefix of a JSON
// value, and the Reader must find where that value ends to skip it whole
// rather than take the lines inside it for messages. Strings are not
// checked for UTF-8, as the Decoder does not check them.
//
// The Reader feeds it the lines of a value spread over lines, joined by
// '\n', in place of decoding the value so far after every line, which
// took time quadratic in the number of lines.
type syntax struct {
	stack []byte // the open containers, '{' or '['
	state uint8
	key   bool   // the string being read is an object's key
	lit   string // the rest of the literal being read
	hex   uint8  // the hex digits of a \u escape still due
	deep  bool   // the nesting went past maxDepth
}

const (
	synValue      = iota // a value is due: at the top, after ':', after ',' in an array
	synValueOrEnd        // after '[': a value or ']'
	synKeyOrEnd          // after '{': a key or '}'
	synKey               // after ',' in an object: a key
	synColon             // after a key
	synAfter             // after a value in a container: ',' or its closing bracket
	synDone              // after the top-level value: nothing more may come
	synString            // in a string
	synEscape            // after '\' in a string
	synHex               // in the hex digits of \u
	synLiteral           // in true, false or null
	synMinus             // after a number's '-'
	synZero              // after a number's leading 0
	synInt               // in a number's integer digits
	synDot               // after a number's '.'
	synFrac              // in a number's fraction digits
	synE                 // after a number's 'e'
	synESign             // after the exponent's sign
	synExp               // in the exponent's digits
	synError             // not a JSON prefix
	synUnchecked         // nested past maxStack: no longer checked
)

// reset makes s ready for a new value, keeping its stack's memory unless
// a value nested past maxDepth grew it.
func (s *syntax) reset() {
	stack := s.stack[:0]
	if cap(stack) > maxDepth {
		stack = nil
	}
	*s = syntax{stack: stack}
}

// ok reports whether the text so far is a JSON prefix that is not yet a
// complete value, however deep it nests.
func (s *syntax) ok() bool { return s.state != synError && s.state != synDone }

// tooDeep reports whether the text nests deeper than maxDepth, which
// encoding/json refuses.
func (s *syntax) tooDeep() bool { return s.deep }

// feed checks the next piece of text.
func (s *syntax) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.state {
		case synError, synUnchecked:
			return
		case synString:
			// The common case: run through the string's plain bytes.
			for c != '"' && c != '\\' && c >= 0x20 {
				if i++; i == len(b) {
					return
				}
				c = b[i]
			}
			switch {
			case c == '"':
				if s.key {
					s.state = synColon
				} else {
					s.end()
				}
			case c == '\\':
				s.state = synEscape
			default:
				s.state = synError // a control character
			}
		case synEscape:
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.state = synString
			case 'u':
				s.state, s.hex = synHex, 4
			default:
				s.state = synError
			}
		case synHex:
			if !isHex(c) {
				s.state = synError
			} else if s.hex--; s.hex == 0 {
				s.state = synString
			}
		case synLiteral:
			if c != s.lit[0] {
				s.state = synError
			} else if s.lit = s.lit[1:]; s.lit == "" {
				s.end()
			}
		case synMinus:
			s.digitAfterSign(c)
		case synZero, synInt, synFrac, synExp:
			switch {
			case '0' <= c && c <= '9' && s.state != synZero:
			case c == '.' && (s.state == synZero || s.state == synInt):
				s.state = synDot
			case (c == 'e' || c == 'E') && s.state != synExp:
				s.state = synE
			default: // the number ended before c
				s.end()
				i--
			}
		case synDot:
			if '0' <= c && c <= '9' {
				s.state = synFrac
			} else {
				s.state = synError
			}
		case synE:
			if c == '+' || c == '-' {
				s.state = synESign
			} else if '0' <= c && c <= '9' {
				s.state = synExp
			} else {
				s.state = synError
			}
		case synESign:
			if '0' <= c && c <= '9' {
				s.state = synExp
			} else {
				s.state = synError
			}
		default:
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			s.token(c)
		}
	}
}

// token takes c, not white space, in a state between tokens.
func (s *syntax) token(c byte) {
	switch s.state {
	case synValueOrEnd:
		if c == ']' {
			s.pop()
			return
		}
		s.value(c)
	case synValue:
		s.value(c)
	case synKeyOrEnd:
		if c == '}' {
			s.pop()
			return
		}
		s.keyStart(c)
	case synKey:
		s.keyStart(c)
	case synColon:
		if c == ':' {
			s.state = synValue
		} else {
			s.state = synError
		}
	case synAfter:
		top := s.stack[len(s.stack)-1]
		switch {
		case c == ',' && top == '{':
			s.state = synKey
		case c == ',' && top == '[':
			s.state = synValue
		case c == '}' && top == '{', c == ']' && top == '[':
			s.pop()
		default:
			s.state = synError
		}
	default: // synDone
		s.state = synError
	}
}

// value starts the value that c begins.
func (s *syntax) value(c byte) {
	switch c {
	case '{':
		s.push(c, synKeyOrEnd)
	case '[':
		s.push(c, synValueOrEnd)
	case '"':
		s.state, s.key = synString, false
	case 't':
		s.state, s.lit = synLiteral, "rue"
	case 'f':
		s.state, s.lit = synLiteral, "alse"
	case 'n':
		s.state, s.lit = synLiteral, "ull"
	case '-':
		s.state = synMinus
	default:
		s.digitAfterSign(c)
	}
}

// digitAfterSign takes the first digit of a number.
func (s *syntax) digitAfterSign(c byte) {
	switch {
	case c == '0':
		s.state = synZero
	case '1' <= c && c <= '9':
		s.state = synInt
	default:
		s.state = synError
	}
}

func (s *syntax) keyStart(c byte) {
	if c == '"' {
		s.state, s.key = synString, true
	} else {
		s.state = synError
	}
}

func (s *syntax) push(c byte, state uint8) {
	if len(s.stack) == maxStack {
		s.state = synUnchecked
		return
	}
	s.deep = s.deep || len(s.stack) == maxDepth
	s.stack = append(s.stack, c)
	s.state = state
}

func (s *syntax) pop() {
	s.stack = s.stack[:len(s.stack)-1]
	s.end()
}

// end follows a complete value.
func (s *syntax) end() {
	if len(s.stack) == 0 {
		s.state = synDone
	} else {
		s.state = synAfter
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

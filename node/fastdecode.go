package node

import (
	"slices"
	"strconv"
)

// fastDecode decodes the common shape of a message, flat bodies of ASCII
// strings, integers and lists of strings (steal_job, pop_job, ...), without
// encoding/json's validation pass and reflection, which cost most of a
// request's time. Anything else, including every malformed input, makes it
// return false, and the caller decodes with json.Unmarshal instead, which
// runs envelope's UnmarshalJSON; where it returns true the result is
// exactly what that produces (a fuzz test checks this). A repeated key is
// left to the slow path too, which refuses it.
func fastDecode(b []byte, env *envelope) bool {
	p := scanner{b: b}
	if !p.open('{') {
		return false
	}
	var keys [3]string
	seen := keys[:0]
	for first := true; ; first = false {
		key, more, ok := p.nextKey(first)
		if !ok || more && slices.Contains(seen, key) {
			return false
		}
		if !more {
			break
		}
		seen = append(seen, key)
		switch key {
		case "src":
			env.Src, ok = p.str()
		case "dest":
			env.Dest, ok = p.str()
		case "body":
			if env.Body == nil {
				env.Body = new(request)
			}
			ok = p.body(env.Body)
		default:
			return false // a key it does not know, exactly: let the slow path decide
		}
		if !ok {
			return false
		}
	}
	p.space()
	return p.i == len(p.b)
}

// body decodes the fields fastDecode supports into r.
func (p *scanner) body(r *request) bool {
	if !p.open('{') {
		return false
	}
	var keys [8]string
	seen := keys[:0]
	for first := true; ; first = false {
		key, more, ok := p.nextKey(first)
		if !ok || !more {
			return ok
		}
		if slices.Contains(seen, key) {
			return false
		}
		seen = append(seen, key)
		switch key {
		case "type":
			r.Type, ok = p.strPtr()
		case "msg_id":
			var digits []byte
			digits, ok = p.integer()
			r.ID = append(r.ID[:0], digits...)
		case "thief_worker":
			r.ThiefWorker, ok = p.strPtr()
		case "worker":
			r.Worker, ok = p.strPtr()
		case "job_id":
			r.JobID, ok = p.strPtr()
		case "busy_workers":
			r.BusyWorkers, ok = p.strs()
		case "workers":
			r.Workers, ok = p.strs()
		default:
			return false
		}
		if !ok {
			return false
		}
	}
}

// scanner walks JSON text; every method returns ok false on anything
// outside the supported subset.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// open consumes c after optional space.
func (p *scanner) open(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// nextKey reads `, "key":` (no comma before the first) or the closing
// brace, in which case more is false.
func (p *scanner) nextKey(first bool) (key string, more, ok bool) {
	if p.open('}') {
		return "", false, true
	}
	if !first && !p.open(',') {
		return "", false, false
	}
	key, ok = p.str()
	return key, true, ok && p.open(':')
}

// str reads a string of printable ASCII without escapes.
func (p *scanner) str() (string, bool) {
	if !p.open('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return string(p.b[start : p.i-1]), true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return "", false
		}
	}
	return "", false
}

func (p *scanner) strPtr() (*string, bool) {
	s, ok := p.str()
	return &s, ok
}

// strs reads a list of strings.
func (p *scanner) strs() ([]string, bool) {
	if !p.open('[') {
		return nil, false
	}
	out := make([]string, 0, 4)
	if p.open(']') {
		return out, true
	}
	for {
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if p.open(']') {
			return out, true
		}
		if !p.open(',') {
			return nil, false
		}
	}
}

// integer reads a JSON integer that fits an int64: -?(0|[1-9][0-9]*).
func (p *scanner) integer() ([]byte, bool) {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	n := p.b[start:p.i]
	if p.i == digits || p.b[digits] == '0' && p.i > digits+1 {
		return nil, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return nil, false
	}
	if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
		return nil, false
	}
	return n, true
}

package node

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Field is one member of a reply body written by AppendReply. Value is a
// string, bool, int, int64, float64, []string, json.RawMessage or []Field
// (a nested object, written in the same order and format).
type Field struct {
	Key   string
	Value any
}

// AppendReply appends to b one reply line in the node's format and returns
// the extended buffer: {"src": src, "dest": dest, "body": {...}} with the
// body's fields in the order given, the separators ", " and ": ", a
// newline at the end, and each value written as the node writes it:
// strings in ASCII as the work-stealing cluster exercise writes them ("é"
// as "\u00e9", "<&>" as it is), floats rounded to three decimals without
// exponent (non-finite ones as 0), lists of strings as ["a", "b"], and a
// json.RawMessage compacted. It
// is for programs that answer the protocol with their own handlers, so
// that their replies are byte for byte what the node would write.
//
// A value of another type, a json.RawMessage that is not valid JSON, or a
// reply longer than MaxReplyBytes gives an error naming the field or the
// size, and b is returned unchanged.
func AppendReply(b []byte, src, dest string, body ...Field) ([]byte, error) {
	e := encoder{buf: b}
	e.open(src, dest)
	if err := e.fields(body); err != nil {
		return b, fmt.Errorf("node: reply not written: %w", err)
	}
	e.close()
	if n := len(e.buf) - len(b); n > MaxReplyBytes {
		return b, fmt.Errorf("node: reply not written: %d bytes, over the limit of %d (MaxReplyBytes)", n, MaxReplyBytes)
	}
	return e.buf, nil
}

// fields writes each field with the method of its value's type.
func (e *encoder) fields(fs []Field) error {
	for _, f := range fs {
		switch v := f.Value.(type) {
		case string:
			e.str(f.Key, v)
		case bool:
			e.bool(f.Key, v)
		case int:
			e.int(f.Key, int64(v))
		case int64:
			e.int(f.Key, v)
		case float64:
			e.float(f.Key, v)
		case []string:
			e.strs(f.Key, v)
		case json.RawMessage:
			if err := e.compact(f.Key, v); err != nil {
				return err
			}
		case []Field:
			e.obj(f.Key)
			if err := e.fields(v); err != nil {
				return err
			}
			e.end()
		default:
			return fmt.Errorf("field %q has a value of type %T, not one of string, bool, int, int64, float64, []string, json.RawMessage or []Field", f.Key, f.Value)
		}
	}
	return nil
}

// compact writes v compacted, as push_job stores a payload.
func (e *encoder) compact(k string, v json.RawMessage) error {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return fmt.Errorf("field %q is not valid JSON: %v", k, err)
	}
	e.raw(k, b.String())
	return nil
}

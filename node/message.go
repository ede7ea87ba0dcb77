package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Fields names the fields a program reads from a message's body: for a
// key, a pointer that the key's value decodes into, as json.Unmarshal
// decodes into it (a *[]string refuses a null element, as the node does);
// nil for a key the program does not know, which is ignored. The node
// knows only type, msg_id and the fields of the message's type: to
// refuse what it refuses, decode the type first (a Fields that knows only
// type), then that type's fields.
type Fields func(key string) any

// DecodeMessage decodes msg, one message of the protocol, as Node.Handle
// decodes one: keys are matched exactly, every string of the message,
// keys included, must be UTF-8 without a lone surrogate escape, a key
// that body's Fields knows (or src, dest, body) must not be given twice,
// and the first problem found is the one reported. It returns the envelope's src
// and dest, and decodes the body's members into body's pointers.
//
// ok is false when there is nothing to reply to (msg is not JSON, or has
// no body object): err then says why, in the words the node logs. With ok
// true, a non-nil err is a malformed request: DecodeErrorText(err) is the
// text of the error reply (code CodeMalformed) the node would write; the
// fields that could be read are read. A program that answers the
// protocol's messages itself decodes with DecodeMessage and ParseMsgID,
// so that it refuses what the node refuses, with the same texts. Any
// goroutine may call it.
func DecodeMessage(msg []byte, body Fields) (src, dest string, ok bool, err error) {
	e := fieldsEnvelope{body: body}
	err = json.Unmarshal(msg, &e)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return "", "", false, fmt.Errorf("not JSON: %v", err)
	}
	var mistyped *json.UnmarshalTypeError
	if !e.hasBody || errors.As(err, &mistyped) && mistyped.Field == "body" {
		return e.src, e.dest, false, errors.New("no body object, nothing to reply to")
	}
	return e.src, e.dest, true, err
}

// ParseMsgID reads a msg_id, raw as a json.RawMessage holds it: nil for
// none (raw empty), the id when it is an integer, else the node's
// malformed error, whose reply text DecodeErrorText gives. Any goroutine
// may call it.
func ParseMsgID(raw []byte) (*int64, error) {
	r := request{ID: raw}
	if err := r.parseMsgID(); err != nil {
		return nil, err
	}
	return r.MsgID, nil
}

// fieldsEnvelope is an envelope whose body decodes through Fields.
type fieldsEnvelope struct {
	src, dest string
	body      Fields
	hasBody   bool
}

// UnmarshalJSON decodes the envelope, matching its keys exactly.
func (e *fieldsEnvelope) UnmarshalJSON(b []byte) error {
	return decodeObject(b, reflect.TypeFor[envelope](), e.member)
}

// member decodes the envelope member key, as envelope.member does.
func (e *fieldsEnvelope) member(d *decoder, b []byte, key []byte, i int, path string) int {
	return d.envelopeMember(b, key, i, &e.src, &e.dest, func(null bool) member {
		e.hasBody = !null // a repeated body is refused; a null one is none
		if null {
			return nil
		}
		return e.bodyMember
	})
}

// bodyMember decodes the body member key into the pointer Fields gives.
func (e *fieldsEnvelope) bodyMember(d *decoder, b []byte, key []byte, i int, path string) int {
	switch p := e.body(string(key)).(type) {
	case nil:
		return d.skip(b, i)
	case *[]string:
		return d.strings(b, i, p, join(path, string(key)))
	default:
		return d.leaf(b, i, p, "request", join(path, string(key)))
	}
}

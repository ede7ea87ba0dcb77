package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/worksteal/steal/coord"
)

// Error codes of the Maelstrom error body. 10 and 12 are Maelstrom's own;
// codes from 1000 up are this node's domain errors, one per coord.Kind.
const (
	CodeNotSupported    = 10   // unknown message type
	CodeMalformed       = 12   // missing or mistyped field, bad value
	CodeUnknownWorker   = 1000 // a named worker does not exist
	CodeDuplicateWorker = 1001 // init lists a worker twice
	CodeNothingToSteal  = 1002 // no candidate worker has a queued job
	CodeUnknownJob      = 1003 // the job is not in flight at that worker
	CodeDuplicateJob    = 1004 // push_job with an id that is already live
)

// codes maps each domain error kind to its wire code. coord.Invalid is a
// request no state could accept, hence malformed.
var codes = map[coord.Kind]int{
	coord.UnknownWorker:   CodeUnknownWorker,
	coord.DuplicateWorker: CodeDuplicateWorker,
	coord.NothingToSteal:  CodeNothingToSteal,
	coord.UnknownJob:      CodeUnknownJob,
	coord.DuplicateJob:    CodeDuplicateJob,
	coord.Invalid:         CodeMalformed,
}

// wireError is a request that fails with an error reply.
type wireError struct {
	code int
	text string
}

func (e *wireError) Error() string { return fmt.Sprintf("error %d: %s", e.code, e.text) }

func malformed(format string, args ...any) error {
	return &wireError{CodeMalformed, fmt.Sprintf(format, args...)}
}

// toWire turns any handler error into the reply's code and text.
func toWire(err error) *wireError {
	var w *wireError
	if errors.As(err, &w) {
		return w
	}
	var mistyped *json.UnmarshalTypeError
	if errors.As(err, &mistyped) {
		return &wireError{CodeMalformed, DecodeErrorText(err)}
	}
	var c *coord.Error
	if errors.As(err, &c) {
		if code, ok := codes[c.Kind]; ok {
			return &wireError{code, c.Error()}
		}
	}
	return &wireError{CodeMalformed, err.Error()}
}

// DecodeErrorText is the text of the error reply (code CodeMalformed) that
// the node writes for err, an error from decoding a message with
// encoding/json: a field of the wrong JSON type is named with the type it
// must have, in the protocol's words rather than Go's ("thief_worker must
// be a string, not a number"); any other error gives its own text. Any
// goroutine may call it; a program that answers the protocol itself calls
// it so that its texts are the node's. For an error from DecodeMessage or
// ParseMsgID it is the text the node writes.
func DecodeErrorText(err error) string {
	var w *wireError
	if errors.As(err, &w) {
		return w.text // from DecodeMessage or ParseMsgID
	}
	var mistyped *json.UnmarshalTypeError
	if !errors.As(err, &mistyped) {
		return err.Error()
	}
	return mistypedText(mistyped)
}

// mistypedText says which field of e holds a value of the wrong JSON type,
// and what it must be: a client in any language reads that, where
// encoding/json's own text names Go structs and types.
func mistypedText(e *json.UnmarshalTypeError) string {
	field := strings.TrimPrefix(e.Field, "body.")
	if field == "" {
		field = "the body"
	}
	if n, ok := strings.CutPrefix(e.Value, "number "); ok && outOfRange(n, e.Type) {
		return fmt.Sprintf("%s %s is out of range", field, n)
	}
	return fmt.Sprintf("%s must be %s, not %s", field, wantText(e.Type), gotText(e.Value))
}

// wantText names the JSON that decodes into t.
func wantText(t reflect.Type) string {
	if t == nil {
		return "a value of another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); e.Kind() == reflect.String || e.Kind() == reflect.Pointer && e.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value of another type"
}

// gotText names the JSON value encoding/json found: its kind, or for a
// number that does not fit, the number itself.
func gotText(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	return v
}

// outOfRange reports whether n, a JSON number that did not decode into t,
// is of the kind t takes but does not fit it: 1e400 for a float64, an
// integer beyond 64 bits, a non-negative one for an unsigned field.
func outOfRange(n string, t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return !strings.ContainsAny(n, ".eE")
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return !strings.ContainsAny(n, ".eE-")
	}
	return false
}

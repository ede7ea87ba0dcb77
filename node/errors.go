package node

import (
	"errors"
	"fmt"

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
	var c *coord.Error
	if errors.As(err, &c) {
		if code, ok := codes[c.Kind]; ok {
			return &wireError{code, c.Error()}
		}
	}
	return &wireError{CodeMalformed, err.Error()}
}

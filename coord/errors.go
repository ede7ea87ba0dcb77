package coord

// Kind classifies a domain error. The node package maps each kind to a wire
// error code, so a kind's meaning must never change once published.
type Kind int

// The kinds of domain error. Invalid covers arguments that no cluster state
// could accept (an empty worker name, no workers at all); the others depend
// on the current state.
const (
	UnknownWorker Kind = iota + 1
	DuplicateWorker
	NothingToSteal
	UnknownJob
	DuplicateJob
	Invalid
)

var kindNames = [...]string{
	UnknownWorker:   "unknown worker",
	DuplicateWorker: "duplicate worker",
	NothingToSteal:  "nothing to steal",
	UnknownJob:      "unknown job",
	DuplicateJob:    "duplicate job",
	Invalid:         "invalid argument",
}

// String returns the kind in words, e.g. "unknown worker".
func (k Kind) String() string {
	if k <= 0 || int(k) >= len(kindNames) {
		return "unknown error kind"
	}
	return kindNames[k]
}

// Error is the one error type the cluster returns. Detail names the worker
// or job involved, so the message reads "unknown worker: w9".
type Error struct {
	Kind   Kind
	Detail string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Kind.String()
	}
	return e.Kind.String() + ": " + e.Detail
}

// Is makes errors.Is(err, ErrUnknownWorker) match any detail of that kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Detail == ""
}

// Sentinels for errors.Is, one per Kind.
var (
	ErrUnknownWorker   = &Error{Kind: UnknownWorker}
	ErrDuplicateWorker = &Error{Kind: DuplicateWorker}
	ErrNothingToSteal  = &Error{Kind: NothingToSteal}
	ErrUnknownJob      = &Error{Kind: UnknownJob}
	ErrDuplicateJob    = &Error{Kind: DuplicateJob}
	ErrInvalid         = &Error{Kind: Invalid}
)

func fail(k Kind, detail string) error { return &Error{Kind: k, Detail: detail} }

package cluster

import "fmt"

// Error is the type of the package's sentinel errors. Code is a short,
// stable, machine-readable name; Text says what went wrong.
type Error struct {
	Code string
	Text string
}

func (e *Error) Error() string { return "cluster: " + e.Text }

// Is reports whether target is an *Error of the same code, so that an error
// whose text names the details (which option, which bucket setting) matches
// its sentinel: errors.Is(err, ErrInvalidOption).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errors returned by Submit, Wait, NewWorker and Start, and the codes a job's
// failure is recorded under. A *JobError unwraps to the sentinel of its code,
// so errors.Is(err, ErrUnknownType) works on what Wait returns.
var (
	// ErrInvalidID: a job id must be 1 to MaxIDLen characters from
	// A-Z a-z 0-9 _ = - (it becomes a NATS subject token and a KV key).
	ErrInvalidID = &Error{"invalid_id", "invalid job id"}
	// ErrInvalidType: a job type must be 1 to 128 printable non-space ASCII characters.
	ErrInvalidType = &Error{"invalid_type", "invalid job type"}
	// ErrNilHandler is returned by Worker.Handle for a nil handler.
	ErrNilHandler = &Error{"nil_handler", "nil handler"}
	// ErrInvalidName: a worker or cluster name must be 1 to 64 characters
	// from A-Z a-z 0-9 _ -.
	ErrInvalidName = &Error{"invalid_name", "invalid worker or cluster name"}
	// ErrPayloadTooLarge: the payload is larger than the configured maximum.
	ErrPayloadTooLarge = &Error{"payload_too_large", "payload too large"}
	// ErrDuplicateJob: a job with this id is completed, or was submitted
	// within the servers' duplicate window (see Limits in the package
	// documentation); the submission changed nothing.
	ErrDuplicateJob = &Error{"duplicate", "duplicate job id"}
	// ErrNoWorkers: no live worker to take the submission (none holds a
	// lease, or none of the name given), as the client last read the
	// workers bucket, at most lease/2 before. A worker that left within
	// that time may still be given a job: its record is then taken over
	// by a survivor, or by the next worker to start if none is left.
	ErrNoWorkers = &Error{"no_workers", "no worker is listening"}
	// ErrClosed: the worker is closed (Start after Close, a submission
	// sent over the subjects of a worker that is closing), or
	// Client.Wait's watch of the ledger ended while its connection was
	// still open. A Client is never closed itself.
	ErrClosed = &Error{"closed", "closed"}
	// ErrStarted: Start was called twice.
	ErrStarted = &Error{"started", "worker already started"}
	// ErrNameInUse: another live worker holds this name.
	ErrNameInUse = &Error{"name_in_use", "worker name in use by a live worker"}
	// ErrSuperseded: another process registered this worker's name while
	// this one was taken for dead (paused or cut off past its lease). The
	// worker stopped serving: Worker.Err returns it.
	ErrSuperseded = &Error{"superseded", "another process holds this worker's name now; this one stopped serving"}
	// ErrServerLost: the worker could not renew its lease for longer than
	// WithServerLossLimit and stopped serving: Worker.Err returns an error
	// wrapping it.
	ErrServerLost = &Error{"server_lost", "no NATS server renewed the worker's lease; it stopped serving"}
	// ErrNotHandedOver: Close could not give up the lease (no server
	// answered): the worker's jobs go to another worker only once the
	// lease expires, and only if a server that holds them comes back.
	ErrNotHandedOver = &Error{"not_handed_over", "could not give up the lease: jobs not handed over"}
	// ErrNotConnected: the *nats.Conn given is nil, closed, or did not
	// (re)connect to a server before the context ended (or, for a context
	// without a deadline, within 5 s). The error returned wraps this one
	// and says which.
	ErrNotConnected = &Error{"not_connected", "not connected to a NATS server"}
	// ErrInvalidOption: an option's value is out of its documented
	// bounds (NewWorker, NewClient). The error returned has the same code
	// and names the option and its bounds; errors.Is matches it.
	ErrInvalidOption = &Error{"invalid_option", "invalid option"}
	// ErrBadBucket: Start found a bucket of the cluster made with settings
	// this version cannot work with (another program's bucket of the same
	// name, for instance). The error returned says which setting.
	ErrBadBucket = &Error{"bad_bucket", "bucket made with unusable settings"}
	// ErrServer: the servers refused a write or answered in a way this
	// package cannot read; the error returned says what they said.
	ErrServer = &Error{"server", "unexpected answer from the servers"}
	// ErrServerTooOld: durable mode needs nats-server 2.12 or newer
	// (atomic batch publish, per-message TTL).
	ErrServerTooOld = &Error{"server_too_old", "nats-server 2.12 or newer is required"}

	// ErrUnknownType is recorded when no handler is registered for the
	// job's type on the worker that ran it.
	ErrUnknownType = &Error{"unknown_type", "no handler for the job's type"}
	// ErrHandlerPanic is recorded when the handler panicked; the text holds
	// the panic value. It is recorded too when the handler called
	// runtime.Goexit, and for the jobs of a bundle that did not run because
	// an earlier job of theirs called it; the text says which.
	ErrHandlerPanic = &Error{"panic", "handler panicked"}
	// ErrResultTooLarge is recorded when the handler's result is larger
	// than the configured maximum payload.
	ErrResultTooLarge = &Error{"result_too_large", "result too large"}
	// ErrMalformedJob is recorded when a job record cannot be decoded.
	ErrMalformedJob = &Error{"malformed", "malformed job record"}
	// ErrHandler is recorded when the handler returned an error; the text
	// holds the error's message.
	ErrHandler = &Error{"handler", "handler failed"}
)

var codes = map[string]*Error{}

func init() {
	for _, e := range []*Error{ErrUnknownType, ErrHandlerPanic, ErrResultTooLarge,
		ErrMalformedJob, ErrHandler, ErrPayloadTooLarge, ErrInvalidID, ErrInvalidType} {
		codes[e.Code] = e
	}
}

// JobError is a job's recorded failure, as Wait returns it.
type JobError struct {
	ID   string // the job
	Code string // one of the sentinel codes, e.g. "unknown_type"
	Text string // what happened, e.g. the panic value or the handler's error (at most 16 KiB)
}

func (e *JobError) Error() string {
	return fmt.Sprintf("cluster: job %s failed: %s: %s", e.ID, e.Code, e.Text)
}

// Unwrap returns the sentinel *Error for the code, or nil.
func (e *JobError) Unwrap() error {
	if s, ok := codes[e.Code]; ok {
		return s
	}
	return nil
}

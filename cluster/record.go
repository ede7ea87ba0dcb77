package cluster

import "encoding/json"

// record is the value of q.<owner>.<id>: a live job.
type record struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Payload []byte `json:"payload,omitempty"`
	Cost    int64  `json:"cost,omitempty"`
	Attempt int    `json:"attempt,omitempty"` // takeovers so far: runs that may have been lost
	Hops    int    `json:"hops,omitempty"`    // steals so far
	From    string `json:"from,omitempty"`    // the victim of the steal that moved it here, if one did
	// Check: the job's completion may be recorded already (a record taken
	// over or loaded at a start, moved before it was checked): the worker
	// that runs it reads the ledger first (see alreadyDone).
	Check bool `json:"check,omitempty"`
	// Bundle holds the jobs of a bundle (see SubmitBundle): this record
	// is then no job of its own, and its id is the bundle's.
	Bundle []record `json:"bundle,omitempty"`
}

// outcome is the value of d.<id>: the one recorded completion of a job.
type outcome struct {
	ID      string `json:"id"`
	Type    string `json:"type,omitempty"`
	Worker  string `json:"worker"`
	Attempt int    `json:"attempt,omitempty"`
	Hops    int    `json:"hops,omitempty"`
	Result  []byte `json:"result,omitempty"`
	Code    string `json:"code,omitempty"`
	Text    string `json:"text,omitempty"`
	// Run tells this worker's completions of one job it holds from
	// another run's that read the same (the same worker before it fenced
	// itself): Stats counts only its own.
	Run string `json:"run,omitempty"`
}

func validChar(c byte, extra bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || extra && c == '='
}

func validID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !validChar(id[i], true) {
			return false
		}
	}
	return true
}

func validName(n string) bool {
	if len(n) == 0 || len(n) > maxNameLen {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !validChar(n[i], false) {
			return false
		}
	}
	return true
}

func validType(t string) bool {
	if len(t) == 0 || len(t) > maxTypeLen {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] > '~' {
			return false
		}
	}
	return true
}

// check validates a job as submitted or spawned; it returns a sentinel.
// A bundle (submitted on a worker's subject by a program without a Go
// client) is checked job by job as well: more than MaxBundleJobs jobs or
// a bundle within it is malformed, and an id it holds twice a duplicate.
func (r *record) check(maxPayload int) error {
	switch {
	case !validID(r.ID):
		return ErrInvalidID
	case !validType(r.Type):
		return ErrInvalidType
	case len(r.Payload) > maxPayload:
		return ErrPayloadTooLarge
	case len(r.Bundle) > MaxBundleJobs:
		return ErrMalformedJob
	}
	seen := make(map[string]bool, len(r.Bundle))
	for i := range r.Bundle {
		m := &r.Bundle[i]
		if len(m.Bundle) > 0 {
			return ErrMalformedJob
		}
		if err := m.check(maxPayload); err != nil {
			return err
		}
		if seen[m.ID] {
			return ErrDuplicateJob
		}
		seen[m.ID] = true
	}
	return nil
}

// fresh clears what a submission received as JSON must not carry: the
// takeovers, steals and victim that only a worker's own moves write, so
// that Job.Attempt and Job.StolenFrom of a submitted job read 0 and "".
func (r *record) fresh() { r.Attempt, r.Hops, r.From = 0, 0, "" }

func decodeRecord(id string, data []byte) (*record, error) {
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.ID != id {
		return nil, ErrInvalidID
	}
	return &r, nil
}

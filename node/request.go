package node

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"
)

// envelope is one incoming message. Body is a pointer so that a missing or
// non-object body (nothing to reply to) is told apart from an empty one.
// The json tags here and in request and costSpec name the keys; their
// UnmarshalJSON methods (decode.go) match them exactly.
type envelope struct {
	Src  string   `json:"src"`
	Dest string   `json:"dest"`
	Body *request `json:"body"`

	// own, when set, names the only fields of the body decoded besides
	// type and msg_id: the fields of the message's type, for decoding
	// again a message refused for a mistyped field (see ownFields).
	own *[]string
}

// request is the union of every request's fields, decoded in one pass:
// decoding the body twice (once for its type, once for its fields) would
// halve the throughput. Pointers tell a missing field from a zero one.
type request struct {
	Type  *string   `json:"type"`
	ID    rawNumber `json:"msg_id"`
	MsgID *int64    `json:"-"` // ID when it is an integer; set by decode

	// init
	Workers          []string  `json:"workers"`
	JobsToDistribute *int      `json:"jobs_to_distribute"`
	Distribution     *string   `json:"distribution"`
	Victim           *string   `json:"victim"`
	Seed             *uint64   `json:"seed"`
	Cost             *costSpec `json:"cost"`
	StealLatencyMS   *float64  `json:"steal_latency_ms"`

	// steal_job
	ThiefWorker *string  `json:"thief_worker"`
	BusyWorkers []string `json:"busy_workers"`

	// run_simulation
	DurationMS *float64 `json:"duration_ms"`
	Policies   []string `json:"policies"`

	// push_job, pop_job, complete_job
	Worker  *string         `json:"worker"`
	JobID   *string         `json:"job_id"`
	Payload json.RawMessage `json:"payload"`
	CostMS  *float64        `json:"cost_ms"`
}

// rawNumber keeps msg_id undecoded: if it were a *int64, a mistyped
// msg_id (1.5, "7") would leave a zero behind that looks like a real id,
// whichever field the decoder reports as the first mistyped one.
type rawNumber []byte

// UnmarshalJSON implements json.Unmarshaler; it accepts any value.
func (r *rawNumber) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// parseMsgID sets MsgID when the msg_id is an integer and reports a
// malformed request when it is present but is not.
func (r *request) parseMsgID() error {
	if len(r.ID) == 0 {
		return nil
	}
	id, err := strconv.ParseInt(string(r.ID), 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return malformed("msg_id %s is out of range: it must be an integer in [%d, %d]", r.ID, int64(math.MinInt64), int64(math.MaxInt64))
	}
	if err != nil {
		return malformed("msg_id must be an integer, not %s", r.ID)
	}
	r.MsgID = &id
	return nil
}

// costSpec is init's job cost model, e.g. {"model": "exponential",
// "mean_ms": 5}.
type costSpec struct {
	Model  *string  `json:"model"`
	MeanMS *float64 `json:"mean_ms"`
}

// required returns *p, or a malformed error naming the missing field.
func required[T any](p *T, field string) (T, error) {
	if p == nil {
		var zero T
		return zero, malformed("missing field %s", field)
	}
	return *p, nil
}

// millis converts an optional non-negative millisecond field. A positive
// time below the nanosecond, the resolution of a time.Duration, is a
// nanosecond: it is in range, and must not turn into 0, which means "none"
// to cost_ms and is refused by the fields that must be positive.
func millis(p *float64, field string, fallback time.Duration) (time.Duration, error) {
	if p == nil {
		return fallback, nil
	}
	if *p < 0 || *p > float64(MaxDuration.Milliseconds()) {
		return 0, malformed("%s must be in [0, %d] ms (MaxDuration, a year), not %v", field, MaxDuration.Milliseconds(), *p)
	}
	d := time.Duration(*p * float64(time.Millisecond))
	if d == 0 && *p > 0 {
		d = 1
	}
	return d, nil
}

// positiveMillis converts a millisecond field that must be more than 0.
func positiveMillis(ms float64, field string) (time.Duration, error) {
	d, err := millis(&ms, field, 0)
	if err != nil || d <= 0 {
		return 0, malformed("%s must be in (0, %d] ms (MaxDuration, a year), not %v", field, MaxDuration.Milliseconds(), ms)
	}
	return d, nil
}

// toMillis converts a duration for a reply.
func toMillis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

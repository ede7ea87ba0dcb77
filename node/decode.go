package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The slow path of Handle decodes a message with encoding/json, whose
// matching of object keys to struct fields ignores case (and folds Unicode:
// the Kelvin sign K matches k): {"type": "check_cluster_state", "TYPE":
// "init"} would be an init. The protocol's keys are exact: a key that is
// not exactly a field's name is a field the node does not know, and is
// ignored. So envelope, request and costSpec decode themselves: they walk
// their object's members in order and hand the value of each known key to
// encoding/json, which decodes the leaf values (strings, numbers, lists of
// strings, raw JSON) as it did, mistyped values included. A known key
// given twice is malformed (see object).
//
// JSON text is UTF-8 (RFC 8259, 8.1), and a \u escape of a lone surrogate
// names no character; encoding/json turns both into U+FFFD, so that
// "j\xff" and "j\xfe" would be one job id. The walk checks every string
// of the message, keys included, known fields or not, and reports the
// first bad one as a malformed request naming where it is.
//
// The walk runs on text that encoding/json has already checked to be valid
// JSON (UnmarshalJSON is only called by it); it still never reads out of
// bounds on anything else.

// decodeObject walks b, a JSON value that decodes into t, with m for the
// members of the object it must be; it returns the first problem as a
// malformed request.
func decodeObject(b []byte, t reflect.Type, m member) error {
	var d decoder
	d.value(b, t, func(i int) int { return d.object(b, i, "", m) })
	return d.result()
}

// UnmarshalJSON decodes an envelope, matching its keys exactly.
func (e *envelope) UnmarshalJSON(b []byte) error {
	return decodeObject(b, reflect.TypeFor[envelope](), e.member)
}

// UnmarshalJSON decodes a request body, matching its keys exactly.
func (r *request) UnmarshalJSON(b []byte) error {
	return decodeObject(b, reflect.TypeFor[request](), r.member)
}

// UnmarshalJSON decodes init's cost, matching its keys exactly.
func (c *costSpec) UnmarshalJSON(b []byte) error {
	return decodeObject(b, reflect.TypeFor[costSpec](), c.member)
}

// member decodes the envelope member key, whose value starts at b[i], and
// returns where the value ends.
func (e *envelope) member(d *decoder, b []byte, key []byte, i int, path string) int {
	return d.envelopeMember(b, key, i, &e.Src, &e.Dest, func(null bool) member {
		if null {
			e.Body = nil // as encoding/json sets a pointer for null
			return nil
		}
		if e.Body == nil { // a repeated body merges, to be refused whole
			e.Body = new(request)
		}
		if e.own != nil {
			return only(*e.own, e.Body.member)
		}
		return e.Body.member
	})
}

// only returns m for type, msg_id and the keys in fields; any other key's
// value is skipped, its strings still checked.
func only(fields []string, m member) member {
	return func(d *decoder, b []byte, key []byte, i int, path string) int {
		if k := string(key); k == "type" || k == "msg_id" || slices.Contains(fields, k) {
			return m(d, b, key, i, path)
		}
		return d.skip(b, i)
	}
}

// envelopeMember decodes the envelope member key, whose value starts at
// b[i], into src or dest, or, for body, walks the object with the member
// that body(false) returns (body(true): the body is null). It returns
// where the value ends.
func (d *decoder) envelopeMember(b []byte, key []byte, i int, src, dest *string, body func(null bool) member) int {
	switch string(key) {
	case "src":
		return d.leaf(b, i, src, "envelope", "src")
	case "dest":
		return d.leaf(b, i, dest, "envelope", "dest")
	case "body":
		return d.nested(b, i, "envelope", "body", reflect.TypeFor[request](), body)
	}
	return d.skip(b, i)
}

// member decodes the request member key; path is where the request is,
// "body" in an envelope.
func (r *request) member(d *decoder, b []byte, key []byte, i int, path string) int {
	if string(key) == "cost" {
		return d.nested(b, i, "request", join(path, "cost"), reflect.TypeFor[costSpec](), func(null bool) member {
			if null {
				r.Cost = nil
				return nil
			}
			if r.Cost == nil {
				r.Cost = new(costSpec)
			}
			return r.Cost.member
		})
	}
	field := r.field(key)
	if list, ok := field.(*[]string); ok {
		return d.strings(b, i, list, join(path, string(key)))
	}
	if field != nil {
		return d.leaf(b, i, field, "request", join(path, string(key)))
	}
	return d.skip(b, i)
}

// field returns a pointer to the request's field whose JSON name is key,
// or nil. cost, the one nested object, is member's.
func (r *request) field(key []byte) any {
	switch string(key) {
	case "type":
		return &r.Type
	case "msg_id":
		return &r.ID
	case "workers":
		return &r.Workers
	case "jobs_to_distribute":
		return &r.JobsToDistribute
	case "distribution":
		return &r.Distribution
	case "victim":
		return &r.Victim
	case "seed":
		return &r.Seed
	case "steal_latency_ms":
		return &r.StealLatencyMS
	case "thief_worker":
		return &r.ThiefWorker
	case "busy_workers":
		return &r.BusyWorkers
	case "duration_ms":
		return &r.DurationMS
	case "policies":
		return &r.Policies
	case "worker":
		return &r.Worker
	case "job_id":
		return &r.JobID
	case "payload":
		return &r.Payload
	case "cost_ms":
		return &r.CostMS
	}
	return nil
}

// member decodes the cost member key.
func (c *costSpec) member(d *decoder, b []byte, key []byte, i int, path string) int {
	switch string(key) {
	case "model":
		return d.leaf(b, i, &c.Model, "costSpec", join(path, "model"))
	case "mean_ms":
		return d.leaf(b, i, &c.MeanMS, "costSpec", join(path, "mean_ms"))
	}
	return d.skip(b, i)
}

// A member decodes one member of an object, the value of key starting at
// b[i], and returns where the value ends; path is where the object is.
type member func(d *decoder, b []byte, key []byte, i int, path string) int

// decoder walks valid JSON text, keeping the first error as encoding/json
// would report it: the first mistyped value, the rest decoded regardless;
// and the first string that is not valid UTF-8.
type decoder struct {
	err     error
	bad     string // the first bad string: what is wrong and where
	problem string // what is wrong with a bad string not yet placed
	read    bool   // the last member walked was decoded, not skipped
}

var errNotJSON = errors.New("json: invalid JSON") // only if called on text encoding/json did not check

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// result returns the error to report: a body that is not an object
// (Handle then has nothing to reply to), else a bad string, else the
// first mistyped value.
func (d *decoder) result() error {
	var mistyped *json.UnmarshalTypeError
	if d.bad != "" && !(errors.As(d.err, &mistyped) && mistyped.Field == "body") {
		return malformed("%s", d.bad)
	}
	return d.err
}

// found notes a bad string, unless one was found before; object places it.
func (d *decoder) found(format string, args ...any) {
	if d.bad == "" && d.problem == "" {
		d.problem = fmt.Sprintf(format, args...)
	}
}

// place says where the bad string found in the current value is.
func (d *decoder) place(where string) {
	if d.problem != "" {
		d.bad, d.problem = d.problem+" in "+where, ""
	}
}

// value decodes the whole of b, an object or null, with object; anything
// else is mistyped, as encoding/json reports it at the top level.
func (d *decoder) value(b []byte, t reflect.Type, object func(i int) int) {
	i := space(b, 0)
	if i == len(b) {
		d.fail(errNotJSON)
		return
	}
	end := i
	switch b[i] {
	case '{':
		end = object(i)
	case 'n':
		end = d.skip(b, i)
	default:
		d.fail(&json.UnmarshalTypeError{Value: kind(b[i]), Type: t, Offset: int64(i)})
		end = d.skip(b, i)
	}
	if space(b, end) != len(b) {
		d.fail(errNotJSON)
	}
}

// nested decodes the value at b[i] of field, a pointer to a struct of
// type t in structName: null calls into(true), which sets the pointer to
// nil; an object is walked with the member function that into(false)
// returns, having allocated the struct if need be; anything else is
// mistyped.
func (d *decoder) nested(b []byte, i int, structName, field string, t reflect.Type, into func(null bool) member) int {
	defer d.decoded() // after the walk of its own members
	switch b[i] {
	case 'n':
		into(true)
		return d.skip(b, i)
	case '{':
		return d.object(b, i, field, into(false))
	}
	d.fail(&json.UnmarshalTypeError{Value: kind(b[i]), Type: t, Offset: int64(i), Struct: structName, Field: field})
	return d.skip(b, i)
}

// leaf decodes the value at b[i] into dst with encoding/json, naming the
// field in a type error as encoding/json names a struct's field.
func (d *decoder) leaf(b []byte, i int, dst any, structName, field string) int {
	defer d.decoded()
	end := d.skip(b, i)
	if err := json.Unmarshal(b[i:end], dst); err != nil {
		var mistyped *json.UnmarshalTypeError
		if errors.As(err, &mistyped) {
			mistyped.Struct, mistyped.Field = structName, field
			mistyped.Offset += int64(i)
		}
		d.fail(err)
	}
	return end
}

// strings decodes the list of strings at b[i] into dst as leaf does, but
// refuses a null element, which encoding/json decodes as "": the field
// then holds a value of the wrong type, not an empty name. A null list is
// the field left out, as for any field.
func (d *decoder) strings(b []byte, i int, dst *[]string, field string) int {
	defer d.decoded()
	var list []*string
	first := d.err == nil
	end := d.leaf(b, i, &list, "request", field)
	var mistyped *json.UnmarshalTypeError
	if first && errors.As(d.err, &mistyped) {
		if mistyped.Type == reflect.TypeFor[[]*string]() {
			mistyped.Type = reflect.TypeFor[[]string]() // name the field's type, not the walk's
		} else {
			d.err = notString(b[i:end], field) // an element's: say which
		}
	}
	if list == nil {
		*dst = nil
		return end
	}
	*dst = make([]string, len(list))
	for k, s := range list {
		if s == nil {
			d.fail(malformed("%s[%d] must be a string, not null", strings.TrimPrefix(field, "body."), k))
			continue
		}
		(*dst)[k] = *s
	}
	return end
}

// notString names the first element of list, a JSON array, that is
// neither a string nor null (a null is refused by strings itself).
func notString(list []byte, field string) error {
	field = strings.TrimPrefix(field, "body.")
	var elems []json.RawMessage
	json.Unmarshal(list, &elems) // list is valid JSON: the walk skipped it
	for k, e := range elems {
		if c := e[0]; c != '"' && c != 'n' {
			return malformed("%s[%d] must be a string, not %s", field, k, gotText(kind(c)))
		}
	}
	return malformed("%s must be a list of strings", field)
}

// decoded notes that the member being walked was decoded into a field.
func (d *decoder) decoded() { d.read = true }

// object walks the object at b[i], calling m for each member in order, and
// returns where the object ends. A key that m decodes more than once is
// malformed: JSON leaves the meaning of such an object to its reader
// (RFC 8259, 4), and readers differ (the last value, the first, or, as
// encoding/json does with two objects, a merge of both).
func (d *decoder) object(b []byte, i int, path string, m member) int {
	i = space(b, i+1) // past '{'
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	var keys [8]string
	read := keys[:0] // the keys m decoded
	for i < len(b) {
		if b[i] != '"' {
			break
		}
		end := d.str(b, i)
		if end < i+2 || b[end-1] != '"' {
			break // unterminated
		}
		if path == "" {
			d.place("a key of the message")
		} else {
			d.place("a key of " + path)
		}
		key := b[i+1 : end-1]
		if hasEscape(key) { // decode it: "t\u0079pe" is "type"
			var k string
			if json.Unmarshal(b[i:end], &k) == nil {
				key = []byte(k)
			}
		}
		i = space(b, end)
		if i >= len(b) || b[i] != ':' {
			break
		}
		i = space(b, i+1)
		if i >= len(b) {
			break
		}
		d.read = false
		i = space(b, m(d, b, key, i, path))
		if d.problem != "" { // in a value that was not an object to walk
			d.place(join(path, shorten(key)))
		}
		if d.read {
			if slices.Contains(read, string(key)) {
				d.fail(malformed("repeated field %s", strings.TrimPrefix(join(path, string(key)), "body.")))
			}
			read = append(read, string(key))
		}
		if i < len(b) && b[i] == ',' {
			i = space(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		break
	}
	d.fail(errNotJSON)
	return len(b)
}

// skip returns where the value at b[i] ends.
func (d *decoder) skip(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i = d.str(b, i)
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
		default: // a number or a literal
			for i < len(b) && !delimiter(b[i]) {
				i++
			}
		}
		if depth <= 0 {
			return i
		}
	}
	return len(b)
}

// str returns where the string at b[i], an opening quote, ends: after
// its closing quote. It notes invalid UTF-8 and lone surrogates.
func (d *decoder) str(b []byte, i int) int {
	for i++; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i = d.escape(b, i)
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				d.found("invalid UTF-8 (byte %#x)", c)
			}
			i += size
		}
	}
	return len(b)
}

// escape returns where the escape at b[i] ends, a surrogate pair taken
// whole; a surrogate not in a pair is noted.
func (d *decoder) escape(b []byte, i int) int {
	r, ok := hex4(b, i)
	if !ok {
		return i + 2 // \n, \", ...
	}
	if !utf16.IsSurrogate(r) {
		return i + 6
	}
	if r < 0xdc00 { // a high surrogate: a low one must follow
		if low, ok := hex4(b, i+6); ok && 0xdc00 <= low && low <= 0xdfff {
			return i + 12
		}
	}
	d.found("lone surrogate %s", b[i:i+6])
	return i + 6
}

// hex4 decodes the \uXXXX escape at b[i].
func hex4(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// shorten returns a key for an error text: at most 40 bytes of it.
func shorten(key []byte) string {
	if len(key) <= 40 {
		return string(key)
	}
	n := 40
	for n > 0 && !utf8.RuneStart(key[n]) {
		n--
	}
	return string(key[:n]) + "..."
}

func hasEscape(s []byte) bool {
	for _, c := range s {
		if c == '\\' {
			return true
		}
	}
	return false
}

func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '}', ']', '{', '[', '"':
		return true
	}
	return false
}

// space returns the index of the first byte at or after i that is not
// JSON white space.
func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// kind names the JSON value starting with c as encoding/json's type
// errors do.
func kind(c byte) string {
	switch c {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// join appends a field's name to the path of its object.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

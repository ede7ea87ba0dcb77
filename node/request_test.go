package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRequestDecodesEveryField(t *testing.T) {
	var env envelope
	err := json.Unmarshal([]byte(`{"src": "c", "dest": "n", "body": {"type": "init", "msg_id": 7,
		"workers": ["a"], "jobs_to_distribute": 3, "cost": {"model": "fixed", "mean_ms": 2},
		"payload": {"x": 1}, "busy_workers": []}}`), &env)
	if err != nil {
		t.Fatal(err)
	}
	r := env.Body
	if err := r.parseMsgID(); err != nil {
		t.Fatal(err)
	}
	if *r.Type != "init" || *r.MsgID != 7 || r.Workers[0] != "a" || *r.JobsToDistribute != 3 ||
		*r.Cost.MeanMS != 2 || string(r.Payload) != `{"x": 1}` || r.BusyWorkers == nil || r.ThiefWorker != nil {
		t.Fatalf("decoded %+v", r)
	}
}

func TestParseMsgID(t *testing.T) {
	for raw, want := range map[string]string{"": "<nil>", "12": "12", "-3": "-3", "1.0": "error", "null": "error", `"1"`: "error"} {
		r := request{ID: rawNumber(raw)}
		got := "error"
		if err := r.parseMsgID(); err == nil {
			got = "<nil>"
			if r.MsgID != nil {
				got = strconv.FormatInt(*r.MsgID, 10)
			}
		}
		if got != want {
			t.Errorf("msg_id %q: got %s, want %s", raw, got, want)
		}
	}
}

func TestRequiredAndMillis(t *testing.T) {
	if _, err := required[string](nil, "worker"); toWire(err).text != "missing field worker" {
		t.Fatalf("required: %v", err)
	}
	s := "w1"
	if v, err := required(&s, "worker"); v != "w1" || err != nil {
		t.Fatalf("required = %q, %v", v, err)
	}
	if d, _ := millis(nil, "x", time.Second); d != time.Second {
		t.Fatalf("fallback %v", d)
	}
	half := 0.5
	if d, _ := millis(&half, "x", 0); d != 500*time.Microsecond {
		t.Fatalf("0.5 ms = %v", d)
	}
	for _, bad := range []float64{-1, 1e12} {
		if _, err := millis(&bad, "x", 0); err == nil || toWire(err).code != CodeMalformed {
			t.Errorf("%v accepted", bad)
		}
	}
	// A positive time below the nanosecond is a nanosecond, not 0: in
	// range, it is not refused, and a cost_ms of 1e-9 is not taken for an
	// absent one.
	for _, tiny := range []float64{1e-9, 1e-300, 5e-324} {
		if d, err := millis(&tiny, "x", 0); d != 1 || err != nil {
			t.Errorf("%v ms = %v, %v; want 1ns", tiny, d, err)
		}
	}
	if toMillis(1500*time.Microsecond) != 1.5 {
		t.Fatal("toMillis")
	}
}

// Keys are matched exactly: one that differs from a field's name, if only
// in case (or by a Unicode folding such as the Kelvin sign for k or the
// long s for s), is a field the node does not know, and is ignored. Before,
// encoding/json's case-insensitive matching let a read-only request carry
// an init ("TYPE") that rebuilt the cluster.
func TestKeysAreMatchedExactly(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{`{"type": "check_cluster_state", "msg_id": 1, "TYPE": "init", "Workers": ["x"]}`, `{"type": "cluster_state_ok", "in_reply_to": 1, "workers": {"w1": `},
		{`{"type": "steal_job", "msg_id": 1, "THIEF_WORKER": "w3"}`, `{"type": "error", "in_reply_to": 1, "code": 12, "text": "missing field thief_worker"}`},
		{`{"type": "check_cluster_state", "Msg_Id": 7}`, `{"type": "error", "code": 12, "text": "missing field msg_id"}`},
		{`{"type": "init", "msg_id": 1, "Workers": ["x"], "ſeed": 3, "cost": {"MODEL": "pareto", "Mean_MS": 3}, "Steal_Latency_MS": 4}`, `{"type": "init_ok", "in_reply_to": 1}`},
		{"{\"type\": \"pop_job\", \"msg_id\": 1, \"wor\u212aer\": \"w1\", \"wor\\u212aer\": \"w2\"}", `{"type": "error", "in_reply_to": 1, "code": 12, "text": "missing field worker"}`},
		// An escaped key is its decoded text, and matched as such.
		{`{"t\u0079pe": "check_cluster_state", "msg_\u0069d": 1}`, `{"type": "cluster_state_ok", "in_reply_to": 1, `},
	} {
		n := New()
		got := ask(t, n, tc.body)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s\n got %.200s\nwant %s", tc.body, got, tc.want)
		}
		w := n.cluster.Workers()
		if len(w) != 3 || w[0].Name != "w1" || n.seed != 0 || n.cost != DefaultCost || n.latency != 0 {
			t.Errorf("%s: workers %v seed %d cost %v latency %v, want the defaults", tc.body, w, n.seed, n.cost, n.latency)
		}
	}
}

func TestEnvelopeKeysAreMatchedExactly(t *testing.T) {
	n := New()
	check := `{"type": "check_cluster_state", "msg_id": 1}`
	if _, err := n.Handle([]byte(`{"src": "c", "dest": "n", "BODY": ` + check + `}`)); err == nil || !strings.Contains(err.Error(), "no body") {
		t.Errorf("BODY taken for body: %v", err)
	}
	reply, err := n.Handle([]byte(`{"src": "c", "dest": "n", "SRC": "evil", "Dest": "evil", "body": ` + check + `}`))
	if err != nil || !strings.HasPrefix(string(reply), `{"src": "n", "dest": "c", "body": {"type": "cluster_state_ok"`) {
		t.Errorf("got %s (%v)", reply, err)
	}
	// Decoding a request or a cost on its own is exact too.
	var r request
	if err := json.Unmarshal([]byte(`{"TYPE": "init", "Msg_ID": 1, "COST": {"mean_ms": 1}, "type": "pop_job"}`), &r); err != nil ||
		*r.Type != "pop_job" || r.ID != nil || r.Cost != nil {
		t.Errorf("request decoded to %+v (%v)", r, err)
	}
	var c costSpec
	if err := json.Unmarshal([]byte(`{"Model": "uniform", "MEAN_MS": 3}`), &c); err != nil || c.Model != nil || c.MeanMS != nil {
		t.Errorf("cost decoded to %+v (%v)", c, err)
	}
}

// JSON text is UTF-8 (RFC 8259, 8.1) and a lone surrogate escape names no
// character: a request with either in any string, key or value, known
// field or not, is malformed and changes nothing. Before, both became
// U+FFFD, so that "j\xff" and "j\xfe" were one job id.
func TestStringsMustBeUTF8(t *testing.T) {
	n := New()
	for _, tc := range []struct{ body, text string }{
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"j\xff\"}", `invalid UTF-8 (byte 0xff) in body.job_id`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"j\xfe\"}", `invalid UTF-8 (byte 0xfe) in body.job_id`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"\xc0\xaf\"}", `invalid UTF-8 (byte 0xc0) in body.job_id`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"\xed\xa0\x80\"}", `invalid UTF-8 (byte 0xed) in body.job_id`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"j\xc3\"}", `invalid UTF-8 (byte 0xc3) in body.job_id`},
		{`{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "j\ud800"}`, `lone surrogate \\ud800 in body.job_id`},
		{`{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "\uDC00j"}`, `lone surrogate \\uDC00 in body.job_id`},
		{`{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "\ud800\u0041"}`, `lone surrogate \\ud800 in body.job_id`},
		{`{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "\ud800\ud800\udc00"}`, `lone surrogate \\ud800 in body.job_id`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"j\", \"payload\": {\"a\": [\"\xff\"]}}", `invalid UTF-8 (byte 0xff) in body.payload`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"j\", \"note\": \"\xff\"}", `invalid UTF-8 (byte 0xff) in body.note`},
		{"{\"type\": \"push_job\", \"msg_id\": 2, \"worker\": \"w1\", \"job_id\": \"j\", \"\xff\": 1}", `invalid UTF-8 (byte 0xff) in a key of body`},
		{`{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "j", "payload": {"\udfff": 1}}`, `lone surrogate \\udfff in body.payload`},
		{"{\"type\": \"init\", \"msg_id\": 2, \"workers\": [\"a\", \"b\xff\"]}", `invalid UTF-8 (byte 0xff) in body.workers`},
		{"{\"type\": \"init\", \"msg_id\": 2, \"cost\": {\"model\": \"\xff\"}}", `invalid UTF-8 (byte 0xff) in body.cost.model`},
		{"{\"type\": \"steal_\xff\", \"msg_id\": 2}", `invalid UTF-8 (byte 0xff) in body.type`},
	} {
		refused(t, n, tc.body, tc.text)
	}
	// Where the msg_id cannot be read, the error has no in_reply_to, as
	// for any request without an integer msg_id.
	if got := ask(t, n, "{\"type\": \"pop_job\", \"msg_id\": \"\xff\", \"worker\": \"w1\"}"); !strings.HasPrefix(got, `{"type": "error", "code": 12, "text": "invalid UTF-8 (byte 0xff) in body.msg_id"`) {
		t.Errorf("got %s", got)
	}
	// In the envelope: the reply still goes back, its address as decoded.
	before := fingerprint(n)
	reply, err := n.Handle([]byte("{\"src\": \"c\xff\", \"dest\": \"n\", \"body\": {\"type\": \"pop_job\", \"msg_id\": 2, \"worker\": \"w1\"}}"))
	if err != nil || !strings.HasSuffix(string(reply), `"body": {"type": "error", "in_reply_to": 2, "code": 12, "text": "invalid UTF-8 (byte 0xff) in src"}}`+"\n") || fingerprint(n) != before {
		t.Errorf("got %s (%v)", reply, err)
	}
	// Valid text, escaped or not, surrogate pairs included, is taken as is.
	for i, id := range []string{"é", `\u00e9x`, `\ud83d\ude00`, "\U0001F600y", `\uFFFD`} {
		got := ask(t, n, `{"type": "push_job", "msg_id": 2, "worker": "w1", "job_id": "`+id+`"}`)
		if !strings.HasPrefix(got, `{"type": "push_job_ok"`) || !strings.HasSuffix(got, `"queue_size": `+strconv.Itoa(4+i)+`}`) {
			t.Errorf("job %s: %s", id, got)
		}
	}
}

// Times in range are accepted however small: before, a duration_ms or
// cost.mean_ms of 1e-9 was truncated to 0 and refused ("must be in (0,
// ...], not 1e-09", which it is), and a cost_ms of 1e-9 taken for none.
func TestTinyTimesAreANanosecond(t *testing.T) {
	n := New()
	if got := ask(t, n, `{"type": "init", "msg_id": 1, "jobs_to_distribute": 2, "cost": {"mean_ms": 1e-9}}`); got != `{"type": "init_ok", "in_reply_to": 1}` || n.cost.Mean != 1 {
		t.Fatalf("got %s, mean %v", got, n.cost.Mean)
	}
	if got := ask(t, n, `{"type": "push_job", "msg_id": 2, "worker": "w2", "job_id": "a", "cost_ms": 1e-9}`); !strings.HasPrefix(got, `{"type": "push_job_ok"`) || n.cluster.Snapshot()[1].Queue[0].Cost != 1 {
		t.Fatalf("got %s, job %+v", got, n.cluster.Snapshot()[1].Queue)
	}
	if got := ask(t, n, `{"type": "run_simulation", "msg_id": 3, "duration_ms": 1e-9, "policies": ["none"]}`); !strings.HasPrefix(got, `{"type": "run_simulation_ok", "in_reply_to": 3, "duration_ms": 0, `) {
		t.Fatalf("got %s", got)
	}
}

// The decoder knows every field of request by its tag.
func TestDecoderKnowsEveryField(t *testing.T) {
	var r request
	v := reflect.ValueOf(&r).Elem()
	for i := 0; i < v.NumField(); i++ {
		tag := v.Type().Field(i).Tag.Get("json")
		if tag == "-" || tag == "cost" {
			continue
		}
		p := r.field([]byte(tag))
		if p == nil || reflect.ValueOf(p).Pointer() != v.Field(i).Addr().Pointer() {
			t.Errorf("field %s: decoder gives %T", tag, p)
		}
	}
	if reflect.TypeFor[plainRequest]().NumField() != v.NumField() {
		t.Error("plainRequest no longer mirrors request")
	}
}

// plainEnvelope, plainRequest and plainCost are envelope, request and
// costSpec as encoding/json decodes them, keys matched case-insensitively.
type plainEnvelope struct {
	Src  string        `json:"src"`
	Dest string        `json:"dest"`
	Body *plainRequest `json:"body"`
}

type plainRequest struct {
	Type             *string         `json:"type"`
	ID               rawNumber       `json:"msg_id"`
	MsgID            *int64          `json:"-"`
	Workers          []string        `json:"workers"`
	JobsToDistribute *int            `json:"jobs_to_distribute"`
	Distribution     *string         `json:"distribution"`
	Victim           *string         `json:"victim"`
	Seed             *uint64         `json:"seed"`
	Cost             *plainCost      `json:"cost"`
	StealLatencyMS   *float64        `json:"steal_latency_ms"`
	ThiefWorker      *string         `json:"thief_worker"`
	BusyWorkers      []string        `json:"busy_workers"`
	DurationMS       *float64        `json:"duration_ms"`
	Policies         []string        `json:"policies"`
	Worker           *string         `json:"worker"`
	JobID            *string         `json:"job_id"`
	Payload          json.RawMessage `json:"payload"`
	CostMS           *float64        `json:"cost_ms"`
}

type plainCost struct {
	Model  *string  `json:"model"`
	MeanMS *float64 `json:"mean_ms"`
}

// plain converts a decoded envelope for comparison with a plainEnvelope.
func plain(e envelope) plainEnvelope {
	p := plainEnvelope{Src: e.Src, Dest: e.Dest}
	if r := e.Body; r != nil {
		p.Body = &plainRequest{r.Type, r.ID, r.MsgID, r.Workers, r.JobsToDistribute, r.Distribution, r.Victim, r.Seed, nil,
			r.StealLatencyMS, r.ThiefWorker, r.BusyWorkers, r.DurationMS, r.Policies, r.Worker, r.JobID, r.Payload, r.CostMS}
		if r.Cost != nil {
			p.Body.Cost = &plainCost{r.Cost.Model, r.Cost.MeanMS}
		}
	}
	return p
}

// foldedKey reports whether the JSON text in has a key that encoding/json
// would match to a field of a different name, or cannot be walked.
func foldedKey(in []byte) bool {
	names := []string{"src", "dest", "body", "model", "mean_ms"}
	for _, typ := range []reflect.Type{reflect.TypeFor[request]()} {
		for i := 0; i < typ.NumField(); i++ {
			names = append(names, typ.Field(i).Tag.Get("json"))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	var stack []bool // in an object, expecting a key
	for {
		tok, err := dec.Token()
		if err != nil {
			return err != io.EOF
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, true)
			continue
		case json.Delim('['):
			stack = append(stack, false)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if k, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1] && dec.More() {
				for _, name := range names {
					if k != name && strings.EqualFold(k, name) {
						return true
					}
				}
				// The key's value follows: consume it, keys inside
				// included, as what it is.
			}
		}
	}
}

// hasRepeatedKey reports whether an object in in, valid JSON, has a key
// twice.
func hasRepeatedKey(in string) bool {
	dec := json.NewDecoder(strings.NewReader(in))
	type object struct {
		keys   map[string]bool
		expect bool // the next token is a key
	}
	var stack []*object
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.expect {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1] != nil {
					stack[len(stack)-1].expect = true
				}
				continue
			}
			key := tok.(string)
			if top.keys[key] {
				return true
			}
			top.keys[key] = true
			top.expect = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].expect = true // a value ended
		}
	}
}

// surrogateEscape matches a \u escape of a surrogate, or text that looks
// like one.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// FuzzDecodeMatchesEncodingJSON checks the exact decoder against
// encoding/json wherever no key differs from a field's name in case only:
// the same fields, the same first error, except that a string that is not
// valid UTF-8 is refused, which encoding/json takes. Where encoding/json allocates a
// body or cost before finding its value mistyped, the decoder leaves it
// nil; both report the error. Its seed corpus runs in every go test.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"src":"c","dest":"n","body":{"type":"init","msg_id":1,"workers":["a"],"jobs_to_distribute":2,"distribution":"blocks","victim":"random","seed":3,"cost":{"model":"uniform","mean_ms":2.5},"steal_latency_ms":1}}`,
		`{"src":"c","dest":"n","body":{"type":"push_job","msg_id":1,"worker":"w","job_id":"j","payload":{"a":[1,"x",null]},"cost_ms":5}}`,
		`{"src":"c","dest":"n","body":{"type":"run_simulation","msg_id":1,"duration_ms":5,"policies":["none"]}}`,
		`{"body":{"type":"steal_job","msg_id":1,"thief_worker":"w3","busy_workers":["w1"]},"body":{"msg_id":2}}`,
		`{"body":{"cost":{"model":"fixed"},"cost":{"mean_ms":3}}}`, `{"body":{"cost":5,"cost":{"mean_ms":3}}}`,
		`{"src":5,"body":{"msg_id":"x","thief_worker":7,"workers":["a",5],"seed":-1}}`, `{"body":{"cost":{"model":5,"mean_ms":"x"}}}`,
		`{"body":null}`, `{"body":5}`, `{"body":{},"body":[]}`, `[]`, `null`, `"x"`, `{"body":{"t\u0079pe":"a","\u0000":1}}`,
		`{"body":{"workers":null,"payload":null,"msg_id":null,"cost":null}}`, `{"body":{"workers":["a",null],"busy_workers":[null,5]}}`, `{"body":{"busy_workers":[5]}}`, `{"x":{"body":1},"body":{"type":"a"}}`,
		"{\"body\":{\"type\":\"\xff\"}}", `{"body":{"type":"\ud800\udc00\udc00"}}`, `{"body":{"type":"\\ud800"}}`,
		`{"`, `{"\"`, `{"a":`, `{"a":{"b`, `{"body":{"cost":{"mo`, `{"a" 1}`, `{"a":1 "b"}`, `{"body":[}`, `{"src":"x\u12`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		// Called directly, on text encoding/json has not checked, the
		// decoders must not fail worse than with an error.
		(&envelope{}).UnmarshalJSON([]byte(in))
		(&request{}).UnmarshalJSON([]byte(in))
		(&costSpec{}).UnmarshalJSON([]byte(in))
		if !json.Valid([]byte(in)) || foldedKey([]byte(in)) {
			return
		}
		var got envelope
		gotErr := json.Unmarshal([]byte(in), &got)
		if w := (*wireError)(nil); errors.As(gotErr, &w) {
			// A null in a list of strings, which encoding/json takes as "",
			// or a bad string, which it takes too: there must be one.
			if strings.HasSuffix(w.text, "must be a string, not null") && strings.Contains(in, "null") {
				return
			}
			// An element of a list of strings that is not a string:
			// encoding/json names the list, the decoder the element.
			var mistyped *json.UnmarshalTypeError
			if errors.As(json.Unmarshal([]byte(in), new(plainEnvelope)), &mistyped) &&
				strings.HasPrefix(w.text, strings.TrimPrefix(mistyped.Field, "body.")+"[") {
				return
			}
			// A key given twice, which encoding/json takes (the last
			// value, or two objects merged).
			if strings.HasPrefix(w.text, "repeated field ") && hasRepeatedKey(in) {
				return
			}
			if utf8.ValidString(in) && !surrogateEscape.MatchString(in) {
				t.Fatalf("%s: %v", in, gotErr)
			}
			return
		}
		var want plainEnvelope
		wantErr := json.Unmarshal([]byte(in), &want)
		names := strings.NewReplacer("plainEnvelope", "envelope", "plainRequest", "request", "plainCost", "costSpec")
		if fmt.Sprint(gotErr) != names.Replace(fmt.Sprint(wantErr)) {
			t.Fatalf("%s\nerror %v\n want %v", in, gotErr, wantErr)
		}
		g := plain(got)
		if wantErr != nil { // encoding/json allocates before it finds the value mistyped
			if g.Body == nil && want.Body != nil && reflect.DeepEqual(*want.Body, plainRequest{}) {
				want.Body = nil
			}
			if g.Body != nil && g.Body.Cost == nil && want.Body != nil && want.Body.Cost != nil && *want.Body.Cost == (plainCost{}) {
				want.Body.Cost = nil
			}
		}
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("%s\n got %+v %+v\nwant %+v %+v", in, g, g.Body, want, want.Body)
		}
	})
}

// A null among the strings of workers, busy_workers or policies is a value
// of the wrong JSON type, error 12 naming the field and the element;
// encoding/json read it as "", which made busy_workers [null] error 1000,
// "unknown worker" with no name, and workers [null] "empty worker name".
func TestNullInAStringListIsMalformed(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": ["w1", null]}`, "busy_workers[1] must be a string, not null"},
		{`{"type": "init", "msg_id": 1, "workers": [null, "w1"]}`, "workers[0] must be a string, not null"},
		{`{"type": "run_simulation", "msg_id": 1, "duration_ms": 5, "policies": ["none", "none", null]}`, "policies[2] must be a string, not null"},
	} {
		n := New()
		before := fingerprint(n)
		want := `{"type": "error", "in_reply_to": 1, "code": 12, "text": "` + tc.want + `"}`
		if got := ask(t, n, tc.body); got != want {
			t.Errorf("%s\n got %s\nwant %s", tc.body, got, want)
		}
		if fingerprint(n) != before {
			t.Errorf("%s changed the node", tc.body)
		}
	}
	// A list that is null itself is the field left out, as for any field.
	if got := ask(t, New(), `{"type": "steal_job", "msg_id": 1, "thief_worker": "w3", "busy_workers": null}`); !strings.HasPrefix(got, `{"type": "job_stolen"`) {
		t.Errorf("busy_workers null: %s", got)
	}
}
